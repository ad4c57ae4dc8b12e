#include "protocols/mcp/server/mcp_stdio_transport.hpp"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/wire/mcp_revision.hpp"

namespace kaisha::mcp {

struct McpStdioTransport::Impl : std::enable_shared_from_this<McpStdioTransport::Impl> {
  McpServer& server;
  int in_fd, out_fd;
  std::mutex write_mu;
  std::shared_ptr<McpSession> session = std::make_shared<McpSession>(new_session_id(), /*own_conversation=*/false);

  std::mutex run_mu;
  std::condition_variable run_cv;
  int running = 0;

  Impl(McpServer& s, int in, int out) : server(s), in_fd(in), out_fd(out) {}

  bool write_line(const json& message) {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    std::lock_guard lock(write_mu);
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(out_fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      left -= static_cast<size_t>(n);
    }
    return true;
  }

  McpStream stream() {
    auto self = shared_from_this();
    return McpStream{[self](const json& m) { return self->write_line(m); }, nullptr, nullptr};
  }

  void handle_line(const std::string& line) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // blank lines are not messages
    jsonrpc::ParsedBody parsed = jsonrpc::parse_body(line, server.options().limits);
    auto self = shared_from_this();
    auto reply = [self](std::optional<json> r) {
      if (r) self->write_line(*r);
    };
    const auto* req = parsed.batch ? nullptr : std::get_if<jsonrpc::Request>(&parsed.messages.front());
    if (req && era_of(*req, RequestEnvelope{}) == Era::kModern) return handle_modern(*req, reply);
    if (req && req->method == "tools/call" && !req->notification) {
      {
        std::lock_guard lock(run_mu);
        ++running;
      }
      std::thread([self, message = parsed.messages.front(), reply] {
        self->server.handle(message, self->session, self->stream(), reply);
        std::lock_guard lock(self->run_mu);
        if (--self->running == 0) self->run_cv.notify_all();
      }).detach();
      return;
    }
    server.handle_body(line, session, stream(), reply);
  }

  // A 2026-07-28 request: checked, then served; a tool call on its own
  // thread so that the next lines are read meanwhile. The connection is
  // passed along so that notifications/cancelled reaches the request.
  void handle_modern(const jsonrpc::Request& req, const jsonrpc::Dispatcher::Done& reply) {
    auto read = read_modern_request(req, RequestEnvelope{});
    if (auto* no = std::get_if<Rejection>(&read)) {
      if (!req.notification) reply(jsonrpc::make_error(req.id, no->code, no->message, no->data));
      return;
    }
    ModernRequest modern = std::get<ModernRequest>(std::move(read));
    if (req.method != "tools/call") {
      server.handle_modern(req, modern, session, stream(), reply);
      return;
    }
    {
      std::lock_guard lock(run_mu);
      ++running;
    }
    std::thread([self = shared_from_this(), req, modern = std::move(modern), reply] {
      self->server.handle_modern(req, modern, self->session, self->stream(), reply);
      std::lock_guard lock(self->run_mu);
      if (--self->running == 0) self->run_cv.notify_all();
    }).detach();
  }

  Status serve() {
    session->set_unrelated_sink([weak = weak_from_this()](const json& m) {
      auto self = weak.lock();
      return self && self->write_line(m);
    });
    server.add_session(session);
    const size_t limit = server.options().limits.body.max_bytes;
    std::string buf;
    bool skipping = false;  // inside a line that is over the limit
    char chunk[65536];
    Status status;
    while (true) {
      ssize_t n = ::read(in_fd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = Error{"io", std::string("reading MCP messages from stdin failed: ") + std::strerror(errno)};
        break;
      }
      if (n == 0) break;
      size_t start = 0;
      for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
        if (chunk[i] != '\n') continue;
        if (!skipping) {
          buf.append(chunk + start, i - start);
          handle_line(buf);
        }
        buf.clear();
        skipping = false;
        start = i + 1;
      }
      if (!skipping) buf.append(chunk + start, static_cast<size_t>(n) - start);
      if (!skipping && buf.size() > limit) {
        write_line(jsonrpc::make_error(nullptr, jsonrpc::code::kInvalidRequest,
                                       "message longer than " + std::to_string(limit) + " bytes; ignored"));
        buf.clear();
        skipping = true;
      }
    }
    if (!skipping && !buf.empty()) handle_line(buf);  // a last line without its newline
    session->close();
    server.remove_session(session->id());
    std::unique_lock lock(run_mu);
    run_cv.wait(lock, [&] { return running == 0; });
    return status;
  }
};

McpStdioTransport::McpStdioTransport(McpServer& server, int in_fd, int out_fd)
    : impl_(std::make_shared<Impl>(server, in_fd, out_fd)) {}

McpStdioTransport::~McpStdioTransport() = default;

Status McpStdioTransport::serve() { return impl_->serve(); }

}  // namespace kaisha::mcp
