// ConnectionStream: cpp-httplib's view of one accepted connection (plain TCP,
// or TLS when given an SSL session), with the deadlines the library itself
// lacks. cpp-httplib only bounds each single read, so a client sending one
// byte every few seconds holds a connection for ever; here a request's line
// and headers must all arrive within header_timeout of its first byte, its
// body within body_timeout of the headers' end, and each write must make
// progress within write_timeout. Headers larger than max_header_bytes fail
// the read. The socket is non-blocking; waits are poll()s.
//
// One connection's stream is used by one thread at a time.
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>
#include <poll.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace kaisha::protocols {

struct ConnectionTimeouts {
  int64_t header_ms = 10'000;
  int64_t body_ms = 30'000;
  int64_t write_ms = 30'000;
  size_t max_header_bytes = 64u << 10;
};

// The peer's address of a connected socket ("127.0.0.1", "::1"), or "".
std::string peer_address(int fd);

class ConnectionStream : public httplib::Stream {
 public:
  // `ssl` (may be null) belongs to the caller and has finished its handshake.
  ConnectionStream(int fd, SSL* ssl, ConnectionTimeouts timeouts);

  // Starts the clock of the next request (its header deadline).
  void begin_request();
  // True when bytes of a next request are buffered or arrive within
  // `wait_ms`; polls in short slices and gives up early once `stopping()`.
  template <class Stopping>
  bool wait_for_request(int64_t wait_ms, Stopping stopping) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    while (!has_buffered()) {
      if (stopping()) return false;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      int r = poll_fd(POLLIN, std::min<int64_t>(left.count(), 100));
      if (r < 0) return false;
      if (r > 0) return true;
    }
    return true;
  }
  // Why the last read failed ("request headers not complete within 10000 ms"), or "".
  const std::string& failure() const { return failure_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  using Clock = std::chrono::steady_clock;
  bool has_buffered() const;
  int poll_fd(short events, int64_t timeout_ms) const;
  // Fills buf_ with what arrives before the current deadline; false on
  // timeout, EOF or error (failure_ says which).
  bool fill();
  Clock::time_point deadline() const { return headers_done_ ? body_deadline_ : header_deadline_; }
  void consumed(const char* p, size_t n);

  int fd_;
  SSL* ssl_;
  ConnectionTimeouts t_;
  char buf_[16 * 1024];
  size_t begin_ = 0, end_ = 0;
  bool headers_done_ = false;
  size_t header_bytes_ = 0;
  uint32_t last4_ = 0;  // the last four bytes handed out, to spot the end of the headers
  Clock::time_point header_deadline_{}, body_deadline_{};
  std::string failure_;
};

}  // namespace kaisha::protocols
