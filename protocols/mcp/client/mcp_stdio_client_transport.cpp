#include "protocols/mcp/client/mcp_stdio_client_transport.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/core/bounded_json.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

namespace kaisha::mcp {
namespace {

constexpr size_t kStderrTail = 2048;

std::string trim_tail(const std::string& s) {
  size_t end = s.find_last_not_of(" \r\n\t");
  return end == std::string::npos ? "" : s.substr(0, end + 1);
}

}  // namespace

struct McpStdioClientTransport::Impl {
  ChildSpec spec;
  McpStdioClientOptions opt;
  Handlers handlers;
  std::unique_ptr<ChildProcess> child;
  std::thread thread;
  int wake[2] = {-1, -1};

  std::mutex mu;  // guards out, stopping, pid
  std::string out;
  bool stopping = false;
  int pid = -1;

  std::string in_line;         // partial stdout line
  bool dropping_line = false;  // inside an over-long line
  std::string err_tail;
  std::ofstream log;

  ~Impl() {
    for (int fd : wake)
      if (fd >= 0) ::close(fd);
  }

  std::string describe() const {
    std::string d = "stdio: " + spec.command;
    for (const auto& a : spec.args) d += " " + a;
    return d;
  }

  void poke() {
    char c = 1;
    [[maybe_unused]] auto n = ::write(wake[1], &c, 1);
  }

  void on_stdout(const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const char c = p[i];
      if (c != '\n') {
        if (dropping_line) continue;
        in_line.push_back(c);
        if (in_line.size() > opt.max_line_bytes) {
          if (handlers.on_malformed)
            handlers.on_malformed("a line longer than " + std::to_string(opt.max_line_bytes) + " bytes");
          in_line.clear();
          dropping_line = true;
        }
        continue;
      }
      if (dropping_line) {
        dropping_line = false;
        continue;
      }
      std::string line = std::move(in_line);
      in_line.clear();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      json j = parse_json_or_discarded(utf8::repair(line));
      if (j.is_discarded()) {
        if (handlers.on_malformed) handlers.on_malformed("not JSON: " + utf8::truncate(utf8::repair(line), 200));
        continue;
      }
      if (j.is_array()) {  // a batch (2025-03-26 allowed them)
        for (auto& m : j) handlers.on_message(m);
      } else {
        handlers.on_message(j);
      }
    }
  }

  void on_stderr(const char* p, size_t n) {
    if (log.is_open()) log.write(p, static_cast<std::streamsize>(n)).flush();
    err_tail.append(p, n);
    if (err_tail.size() > kStderrTail) err_tail.erase(0, err_tail.size() - kStderrTail);
  }

  // Drains what the child wrote to fd; false at EOF or on a hard error.
  bool drain(int fd, bool is_stdout) {
    char buf[65536];
    for (;;) {
      ssize_t r = ::read(fd, buf, sizeof buf);
      if (r > 0) {
        if (is_stdout)
          on_stdout(buf, static_cast<size_t>(r));
        else
          on_stderr(buf, static_cast<size_t>(r));
        continue;
      }
      if (r == 0) return false;
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
  }

  // Writes what is queued; false when the child closed its stdin.
  bool flush() {
    std::unique_lock<std::mutex> lock(mu);
    while (!out.empty() && child->stdin_fd() >= 0) {
      ssize_t w = ::write(child->stdin_fd(), out.data(), out.size());
      if (w > 0) {
        out.erase(0, static_cast<size_t>(w));
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      // EPIPE: consume the SIGPIPE this thread has blocked.
      sigset_t pipe_set;
      sigemptyset(&pipe_set);
      sigaddset(&pipe_set, SIGPIPE);
      timespec zero{0, 0};
      ::sigtimedwait(&pipe_set, nullptr, &zero);
      out.clear();
      child->close_stdin();
      return false;
    }
    return true;
  }

  void run() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_set, nullptr);
    bool out_open = true, err_open = true;
    while (true) {
      bool want_write;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) break;
        want_write = !out.empty() && child->stdin_fd() >= 0;
      }
      pollfd fds[4];
      nfds_t n = 0;
      fds[n++] = {wake[0], POLLIN, 0};
      const int out_i = out_open ? static_cast<int>(n) : -1;
      if (out_open) fds[n++] = {child->stdout_fd(), POLLIN, 0};
      const int err_i = err_open ? static_cast<int>(n) : -1;
      if (err_open) fds[n++] = {child->stderr_fd(), POLLIN, 0};
      const int in_i = want_write ? static_cast<int>(n) : -1;
      if (want_write) fds[n++] = {child->stdin_fd(), POLLOUT, 0};
      if (::poll(fds, n, -1) < 0 && errno != EINTR) break;
      if (fds[0].revents) {
        char buf[64];
        while (::read(wake[0], buf, sizeof buf) > 0) {
        }
      }
      if (in_i >= 0 && fds[in_i].revents) flush();
      if (err_i >= 0 && fds[err_i].revents && !drain(child->stderr_fd(), false)) err_open = false;
      if (out_i >= 0 && fds[out_i].revents && !drain(child->stdout_fd(), true)) out_open = false;
      if (!out_open) break;
    }
    bool stopped;
    {
      std::lock_guard<std::mutex> lock(mu);
      stopped = stopping;
    }
    // Stdout closed: the server is gone (or going). Reap it and say how.
    const std::string how = child->terminate(std::chrono::milliseconds(stopped ? opt.shutdown_grace_ms : 200));
    if (err_open) drain(child->stderr_fd(), false);
    {
      std::lock_guard<std::mutex> lock(mu);
      pid = -1;
    }
    if (stopped || !handlers.on_closed) return;
    std::string msg = "MCP server (" + describe() + ") " + how;
    const std::string tail = utf8::repair(trim_tail(err_tail));
    if (!tail.empty()) {
      auto nl = tail.rfind('\n', tail.size() > 400 ? tail.size() - 400 : 0);
      msg += "; its stderr ended with: " +
             (nl == std::string::npos || tail.size() <= 400 ? utf8::tail(tail, 400) : tail.substr(nl + 1));
    }
    handlers.on_closed(Error{"mcp_closed", msg});
  }
};

McpStdioClientTransport::McpStdioClientTransport(ChildSpec spec, McpStdioClientOptions options)
    : impl_(std::make_shared<Impl>()) {
  impl_->spec = std::move(spec);
  impl_->opt = std::move(options);
}

McpStdioClientTransport::~McpStdioClientTransport() { close(); }

Status McpStdioClientTransport::start(Handlers handlers) {
  if (impl_->child) return Error{"mcp", "transport already started"};
  impl_->handlers = std::move(handlers);
  if (!impl_->opt.stderr_log.empty()) {
    impl_->log.open(impl_->opt.stderr_log, std::ios::app);
    if (!impl_->log) return Error{"mcp", "cannot open the MCP server log " + impl_->opt.stderr_log};
  }
  auto child = ChildProcess::spawn(impl_->spec);
  if (!child.ok()) return Error{child.error().code, "MCP server (" + impl_->describe() + "): " + child.error().message};
  impl_->child = std::move(child).value();
  impl_->pid = impl_->child->pid();
  if (::pipe2(impl_->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    impl_->child->terminate(std::chrono::milliseconds(100));
    return Error{"mcp", std::string("pipe: ") + std::strerror(errno)};
  }
  auto impl = impl_;
  impl_->thread = std::thread([impl] { impl->run(); });
  return Status::Ok();
}

void McpStdioClientTransport::send(const json& message) {
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopping || impl_->pid < 0) return;  // gone: on_closed fails what is pending
    impl_->out += line;
  }
  impl_->poke();
}

void McpStdioClientTransport::close() {
  if (!impl_->thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->poke();
  if (impl_->thread.get_id() == std::this_thread::get_id()) {
    // The last owner let go inside a handler: the I/O thread ends the
    // process itself and exits; it holds the state it needs.
    impl_->thread.detach();
    return;
  }
  impl_->thread.join();
  impl_->child.reset();
}

std::string McpStdioClientTransport::describe() const { return impl_->describe(); }

int McpStdioClientTransport::pid() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->pid;
}

}  // namespace kaisha::mcp
