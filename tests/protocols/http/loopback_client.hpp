// Raw HTTP over TCP from a chosen loopback source address (127.0.0.2, ...),
// for tests that play several clients or misbehave on purpose.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace kaisha::testing {

// A socket bound to `source` and connected to 127.0.0.1:`port`, or -1.
inline int connect_from(const std::string& source, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in src{};
  src.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &src.sin_addr);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof(src)) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof(dst)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

inline bool send_all(int fd, const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::send(fd, text.data() + off, text.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// What arrives until the peer closes or `wait` passes; `closed` says which.
inline std::string read_until_close(int fd, std::chrono::milliseconds wait, bool* closed = nullptr) {
  std::string out;
  const auto until = std::chrono::steady_clock::now() + wait;
  if (closed) *closed = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return out;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return out;
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      if (closed) *closed = true;
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

// One request on a fresh connection from `source` ("Connection: close" is
// added); the whole response, or "" when none came within `wait`.
inline std::string request_from(const std::string& source, int port, const std::string& method, const std::string& path,
                                const std::string& headers = "", const std::string& body = "",
                                std::chrono::milliseconds wait = std::chrono::seconds(20)) {
  int fd = connect_from(source, port);
  if (fd < 0) return "";
  std::string text = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers;
  if (!body.empty() || method == "POST") text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  text += "\r\n" + body;
  std::string out = send_all(fd, text) ? read_until_close(fd, wait) : "";
  ::close(fd);
  return out;
}

// The status code of a raw response ("HTTP/1.1 429 ..." -> 429), 0 if none.
inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

// The body of a raw response (after the blank line).
inline std::string body_of(const std::string& response) {
  auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

}  // namespace kaisha::testing
