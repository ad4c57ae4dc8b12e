// ConnectionLimiter: how many connections the HTTP server holds open, in all
// and per client, so that one client (or a flood of slow ones) cannot take
// every connection the server will hold. A client here is a source address:
// the bearer token is only known once a request's headers are read, after
// the connection has been admitted. Pure bookkeeping; thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace kaisha::protocols {

class ConnectionLimiter {
 public:
  ConnectionLimiter(size_t max_total, size_t max_per_client);

  // Why a connection was not admitted; empty when it was.
  struct Admission {
    bool admitted = false;
    std::string refusal;  // "127.0.0.2 already holds 64 connections (the limit per client)", ...
  };
  // Counts a new connection from `client`, or says why not. An admitted
  // connection must be released exactly once.
  Admission admit(const std::string& client);
  void release(const std::string& client);

  size_t total() const;
  size_t of(const std::string& client) const;
  size_t max_total() const { return max_total_; }

 private:
  const size_t max_total_;
  const size_t max_per_client_;
  mutable std::mutex mu_;
  size_t total_ = 0;
  std::map<std::string, size_t> per_client_;
};

}  // namespace kaisha::protocols
