// A cpp-httplib server on 127.0.0.1 with an ephemeral port, run on its own
// thread for the duration of a test.
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <httplib.h>

namespace kaisha::http::testing {

class TestServer {
 public:
  // Every request holds a worker for its handler's latency, and an idle
  // kept-alive connection holds one too: a test with many requests at once
  // asks for as many workers. The pool is made before the server accepts, and
  // a thread costs milliseconds under a sanitizer, so the default is small.
  explicit TestServer(size_t workers = 16) {
    server.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  }
  ~TestServer() { stop(); }

  // Binds and starts serving; call after registering handlers. `host` may be
  // another loopback address (127.0.0.2) where a test needs two hosts.
  void start(const std::string& on_host = "127.0.0.1") {
    host = on_host;
    port = server.bind_to_any_port(host);
    raise_backlog();
    thread = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void stop() {
    if (thread.joinable()) {
      server.stop();
      thread.join();
    }
  }
  std::string url(const std::string& path) const { return "http://" + host + ":" + std::to_string(port) + path; }

  // The packaged (compiled) cpp-httplib listens with a backlog of 5, which
  // drops handshakes when a test opens hundreds of connections at once.
  // Linux lets listen() be called again on a listening socket to enlarge it;
  // the server's socket is found by its port.
  void raise_backlog() {
    for (int fd = 3; fd < 4096; ++fd) {
      int listening = 0;
      socklen_t len = sizeof listening;
      if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening) continue;
      sockaddr_in addr{};
      socklen_t alen = sizeof addr;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0 || addr.sin_family != AF_INET) continue;
      if (ntohs(addr.sin_port) == port) ::listen(fd, 1024);
    }
  }

  httplib::Server server;
  std::string host = "127.0.0.1";
  int port = 0;
  std::thread thread;
};

}  // namespace kaisha::http::testing
