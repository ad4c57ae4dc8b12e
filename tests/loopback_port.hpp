// A loopback TCP port that nothing listens on, for a server a test starts
// itself (a child process, or one bound later in the test).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <random>

namespace kaisha::test {

// Drawn below Linux's ephemeral range (32768-60999 by default). A port from
// bind(0) that is closed again goes back to the kernel, which may hand it to
// any outgoing connection of a test running in parallel before the server
// binds it ("Address already in use"); ports below the range are never handed
// out so. Returns 0 when none of 200 draws is free.
inline int unused_loopback_port() {
  static std::mt19937 pick{std::random_device{}()};
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = std::uniform_int_distribution<int>(20000, 32767)(pick);
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    if (free) return port;
  }
  return 0;
}

}  // namespace kaisha::test
