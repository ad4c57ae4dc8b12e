#include "protocols/http/connection_stream.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kaisha::protocols {
namespace {

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  int r = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
               : getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ip.clear();
  port = 0;
  if (r != 0) return;
  char text[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

}  // namespace

std::string peer_address(int fd) {
  std::string ip;
  int port = 0;
  address_of(fd, true, ip, port);
  return ip;
}

ConnectionStream::ConnectionStream(int fd, SSL* ssl, ConnectionTimeouts timeouts) : fd_(fd), ssl_(ssl), t_(timeouts) {
  int flags = fcntl(fd_, F_GETFL, 0);
  if (flags >= 0) fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
  begin_request();
}

void ConnectionStream::begin_request() {
  headers_done_ = false;
  header_bytes_ = 0;
  last4_ = 0;
  failure_.clear();
  header_deadline_ = Clock::now() + std::chrono::milliseconds(t_.header_ms);
}

bool ConnectionStream::has_buffered() const { return begin_ < end_ || (ssl_ && SSL_pending(ssl_) > 0); }

int ConnectionStream::poll_fd(short events, int64_t timeout_ms) const {
  pollfd p{fd_, events, 0};
  for (;;) {
    int r = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(timeout_ms, 0)));
    if (r < 0 && errno == EINTR) continue;
    if (r > 0 && (p.revents & (POLLERR | POLLNVAL))) return -1;
    return r;
  }
}

bool ConnectionStream::fill() {
  for (;;) {
    ssize_t n;
    int want = POLLIN;
    if (ssl_) {
      n = SSL_read(ssl_, buf_, static_cast<int>(sizeof(buf_)));
      if (n <= 0) {
        int e = SSL_get_error(ssl_, static_cast<int>(n));
        if (e == SSL_ERROR_WANT_WRITE)
          want = POLLOUT;
        else if (e != SSL_ERROR_WANT_READ) {
          failure_ = e == SSL_ERROR_ZERO_RETURN ? "closed by the client" : "TLS read failed";
          return false;
        }
      }
    } else {
      n = ::recv(fd_, buf_, sizeof(buf_), 0);
      if (n == 0) {
        failure_ = "closed by the client";
        return false;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        failure_ = std::string("read failed: ") + std::strerror(errno);
        return false;
      }
    }
    if (n > 0) {
      begin_ = 0;
      end_ = static_cast<size_t>(n);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline() - Clock::now()).count();
    if (left <= 0 || poll_fd(static_cast<short>(want), left) <= 0) {
      failure_ = headers_done_ ? "request body not complete within " + std::to_string(t_.body_ms) + " ms"
                               : "request headers not complete within " + std::to_string(t_.header_ms) + " ms";
      return false;
    }
  }
}

void ConnectionStream::consumed(const char* p, size_t n) {
  if (headers_done_) return;
  for (size_t i = 0; i < n; ++i) {
    last4_ = (last4_ << 8) | static_cast<unsigned char>(p[i]);
    ++header_bytes_;
    // "\r\n\r\n" ends the headers (a stray blank line before the request line does not).
    if (last4_ == 0x0d0a0d0a && header_bytes_ > 4) {  // the body's clock starts
      headers_done_ = true;
      body_deadline_ = Clock::now() + std::chrono::milliseconds(t_.body_ms);
      return;
    }
  }
}

bool ConnectionStream::is_readable() const {
  if (has_buffered()) return true;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline() - Clock::now()).count();
  return left > 0 && poll_fd(POLLIN, left) > 0;
}

bool ConnectionStream::is_writable() const { return poll_fd(POLLOUT, t_.write_ms) > 0; }

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (!headers_done_ && header_bytes_ >= t_.max_header_bytes) {
    failure_ = "request headers larger than " + std::to_string(t_.max_header_bytes) + " bytes";
    return -1;
  }
  if (begin_ == end_ && !fill()) return -1;
  size_t n = std::min(size, end_ - begin_);
  // Before the headers end, hand out at most what is left of their budget.
  if (!headers_done_) n = std::min(n, t_.max_header_bytes - header_bytes_);
  std::memcpy(ptr, buf_ + begin_, n);
  begin_ += n;
  consumed(ptr, n);
  return static_cast<ssize_t>(n);
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  for (;;) {
    ssize_t n;
    int want = POLLOUT;
    if (ssl_) {
      n = SSL_write(ssl_, ptr, static_cast<int>(std::min<size_t>(size, 1u << 30)));
      if (n <= 0) {
        int e = SSL_get_error(ssl_, static_cast<int>(n));
        if (e == SSL_ERROR_WANT_READ)
          want = POLLIN;
        else if (e != SSL_ERROR_WANT_WRITE)
          return -1;
      }
    } else {
      n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    }
    if (n > 0) return n;
    if (poll_fd(static_cast<short>(want), t_.write_ms) <= 0) return -1;  // the peer stopped reading
  }
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const { address_of(fd_, true, ip, port); }
void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const { address_of(fd_, false, ip, port); }

}  // namespace kaisha::protocols
