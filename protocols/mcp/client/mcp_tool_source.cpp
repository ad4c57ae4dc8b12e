#include "protocols/mcp/client/mcp_tool_source.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/client/mcp_stdio_client_transport.hpp"
#include "protocols/mcp/client/mcp_tool_result.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::mcp {

using Clock = std::chrono::steady_clock;

// OAuth for an HTTP server that has no static Authorization: it stays
// dormant until the server answers 401.
std::shared_ptr<McpOAuth> oauth_for(const config::McpServerConfig& cfg, http::HttpClient& http) {
  if (cfg.stdio() || !cfg.bearer_token.empty()) return nullptr;
  for (const auto& [k, v] : cfg.headers) {
    if (ascii_lower(k) == "authorization") return nullptr;
  }
  OAuthSettings s;
  s.grant = cfg.auth.grant == "client_credentials"   ? OAuthGrant::client_credentials
            : cfg.auth.grant == "jwt_bearer"         ? OAuthGrant::jwt_bearer
            : cfg.auth.grant == "identity_assertion" ? OAuthGrant::identity_assertion
                                                     : OAuthGrant::authorization_code;
  s.client_id = cfg.auth.client_id;
  s.client_secret = cfg.auth.client_secret;
  s.private_key_pem = cfg.auth.private_key_pem;
  s.signing_alg = cfg.auth.signing_algorithm;
  s.assertion_file = cfg.auth.assertion_file;
  s.idp_token_endpoint = cfg.auth.idp_token_endpoint;
  s.idp_client_id = cfg.auth.idp_client_id;
  s.client_metadata_url = cfg.auth.client_metadata_url;
  s.scopes = cfg.auth.scopes;
  if (!cfg.auth.redirect_uri.empty()) s.redirect_uri = cfg.auth.redirect_uri;
  s.store = std::make_shared<OAuthTokenStore>(cfg.auth.token_file.empty() ? OAuthTokenStore::default_path()
                                                                          : cfg.auth.token_file);
  // A person may sign in: the URL goes to the terminal kaisha runs in.
  s.ask_user = [name = cfg.name](const std::string& url) {
    std::fprintf(stderr, "kaisha: MCP server '%s' needs you to sign in; open this URL in a browser:\n  %s\n",
                 name.c_str(), url.c_str());
  };
  return McpOAuth::create(http, "'" + cfg.name + "'", cfg.url, std::move(s));
}

struct McpToolSource::State : std::enable_shared_from_this<McpToolSource::State> {
  config::McpServerConfig cfg;
  http::HttpClient* http = nullptr;
  std::shared_ptr<McpOAuth> oauth;  // kept across restarts: its tokens outlive a client

  mutable std::mutex mu;  // everything below
  std::condition_variable cv;
  std::thread thread;
  bool stopping = false;
  bool first_attempt_done = false;
  bool running = false;
  bool connecting = false;
  int attempt = 0;   // failures in a row
  int connects = 0;  // successful initializations
  Clock::time_point next_restart{};
  std::string last_error;
  std::shared_ptr<McpClient> client;
  std::vector<McpToolInfo> tools;
  uint64_t generation = 0;  // of the current client; events of older ones are ignored
  bool closed_event = false;
  bool relist_event = false;

  std::string who() const { return "MCP server '" + cfg.name + "'"; }

  std::shared_ptr<McpClient> make_client() {
    std::unique_ptr<McpClientTransport> t;
    if (cfg.stdio()) {
      McpStdioClientOptions so;
      so.stderr_log = cfg.stderr_log;
      t = std::make_unique<McpStdioClientTransport>(ChildSpec{cfg.command, cfg.args, cfg.env}, so);
    } else {
      McpHttpClientOptions ho;
      ho.headers = cfg.headers;
      if (!cfg.bearer_token.empty()) ho.headers["Authorization"] = "Bearer " + cfg.bearer_token;
      if (!oauth) oauth = oauth_for(cfg, *http);
      ho.oauth = oauth;
      t = std::make_unique<McpHttpClientTransport>(*http, cfg.url, ho);
    }
    McpClientOptions co;
    co.name = "'" + cfg.name + "' (" + t->describe() + ")";
    co.request_timeout_ms = cfg.timeout_ms;
    co.initialize_timeout_ms = cfg.connect_timeout_ms;
    auto c = McpClient::create(std::move(t), *http, co);
    std::weak_ptr<State> weak = weak_from_this();
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mu);
      gen = ++generation;
      closed_event = relist_event = false;
    }
    c->on_notification([weak, gen](const std::string& method, const json&) {
      if (method != "notifications/tools/list_changed") return;
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard<std::mutex> lock(self->mu);
      if (gen != self->generation) return;
      self->relist_event = true;
      self->cv.notify_all();
    });
    c->on_closed([weak, gen](const Error& e) {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard<std::mutex> lock(self->mu);
      if (gen != self->generation) return;
      self->closed_event = true;
      self->last_error = e.message;
      self->cv.notify_all();
    });
    return c;
  }

  // Runs one asynchronous step and waits for it (or for stop, or the deadline).
  template <class Start>
  Status wait_step(Start start, Clock::time_point deadline, const std::string& what) {
    auto done = std::make_shared<std::optional<Status>>();
    std::weak_ptr<State> weak = weak_from_this();
    start([weak, done](Status s) {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard<std::mutex> lock(self->mu);
      *done = std::move(s);
      self->cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_until(lock, deadline, [&] { return stopping || done->has_value(); }))
      return Error{"timeout", who() + " did not finish " + what + " within " + std::to_string(cfg.connect_timeout_ms) +
                                  " ms (connect_timeout_ms)"};
    if (stopping && !done->has_value()) return Error{"mcp_closed", who() + ": stopping"};
    return **done;
  }

  Status list(const std::shared_ptr<McpClient>& c, Clock::time_point deadline) {
    auto listed = std::make_shared<std::vector<McpToolInfo>>();
    Status s = wait_step(
        [&](std::function<void(Status)> step_done) {
          c->list_tools([listed, step_done](Result<std::vector<McpToolInfo>> r) {
            if (!r.ok()) return step_done(r.error());
            *listed = std::move(r).value();
            step_done(Status::Ok());
          });
        },
        deadline, "tools/list");
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> lock(mu);
    tools = std::move(*listed);
    return Status::Ok();
  }

  Status connect_and_list(const std::shared_ptr<McpClient>& c) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(cfg.connect_timeout_ms);
    Status s = wait_step([&](std::function<void(Status)> step_done) { c->connect(step_done); }, deadline,
                         "the initialize handshake");
    if (!s.ok()) return s;
    return list(c, deadline);
  }

  int64_t backoff_ms(int failures) const {
    double d = static_cast<double>(cfg.restart_base_ms) * std::pow(2.0, std::max(0, failures - 1));
    return static_cast<int64_t>(std::min(d, static_cast<double>(cfg.restart_max_ms)));
  }

  void supervise() {
    std::unique_lock<std::mutex> lock(mu);
    while (!stopping) {
      connecting = true;
      lock.unlock();
      auto c = make_client();
      Status s = connect_and_list(c);
      lock.lock();
      connecting = false;
      if (s.ok()) {
        client = c;
        running = true;
        attempt = 0;
        if (connects++ > 0) std::fprintf(stderr, "kaisha: %s is running again\n", who().c_str());
        first_attempt_done = true;
        cv.notify_all();
        while (true) {
          cv.wait(lock, [&] { return stopping || closed_event || relist_event; });
          if (stopping || closed_event) break;
          relist_event = false;
          lock.unlock();
          Status r = list(c, Clock::now() + std::chrono::milliseconds(cfg.connect_timeout_ms));
          lock.lock();
          if (!r.ok()) last_error = r.error().message;
        }
        running = false;
        client.reset();
      } else {
        last_error = s.error().message;
        first_attempt_done = true;
        cv.notify_all();
      }
      const bool stop_now = stopping;
      lock.unlock();
      c->close();  // ends the process; blocking is fine on this thread
      // Dropped here, not at the end of the loop under `mu`: its destructor
      // takes the transport's delivery lock, under which replies take `mu`.
      c.reset();
      lock.lock();
      if (stop_now || stopping) break;
      ++attempt;
      const int64_t delay = backoff_ms(attempt);
      next_restart = Clock::now() + std::chrono::milliseconds(delay);
      std::fprintf(stderr, "kaisha: %s is not running (%s); restarting in %.1f s\n", who().c_str(), last_error.c_str(),
                   static_cast<double>(delay) / 1000.0);
      cv.wait_until(lock, next_restart, [&] { return stopping; });
    }
  }

  // Why a call cannot run now.
  std::string not_running_message() const {
    std::string m = who() + " is not running; restarting (attempt " + std::to_string(std::max(1, attempt));
    if (connecting) {
      m += " in progress)";
    } else {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next_restart - Clock::now()).count();
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", std::max<int64_t>(0, left) / 1000.0);
      m += std::string(", next in ") + buf + " s)";
    }
    if (!last_error.empty()) m += "; last error: " + last_error;
    return m;
  }
};

std::shared_ptr<McpToolSource> McpToolSource::create(config::McpServerConfig server, http::HttpClient& http) {
  std::shared_ptr<McpToolSource> p(new McpToolSource());
  p->state_ = std::make_shared<State>();
  p->state_->cfg = std::move(server);
  p->state_->http = &http;
  return p;
}

McpToolSource::~McpToolSource() { stop(); }

void McpToolSource::start() {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->thread.joinable() || state_->stopping) return;
  auto st = state_;
  state_->thread = std::thread([st] { st->supervise(); });
}

Status McpToolSource::wait_ready(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait_for(lock, timeout, [&] { return state_->running || state_->first_attempt_done || state_->stopping; });
  if (state_->running) return Status::Ok();
  if (!state_->first_attempt_done)
    return Error{"timeout", state_->who() + " is not up after " + std::to_string(timeout.count()) + " ms"};
  return Error{"mcp", state_->who() + " did not start: " + state_->last_error};
}

void McpToolSource::stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
    state_->cv.notify_all();
  }
  if (state_->thread.joinable()) {
    if (state_->thread.get_id() == std::this_thread::get_id())
      state_->thread.detach();
    else
      state_->thread.join();
  }
}

std::string McpToolSource::origin() const { return "mcp:" + state_->cfg.name; }

std::vector<llm::ToolSpec> McpToolSource::specs() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::vector<llm::ToolSpec> out;
  out.reserve(state_->tools.size());
  for (const auto& t : state_->tools) {
    llm::ToolSpec s;
    s.name = state_->cfg.tool_prefix + t.name;
    s.description = t.description.empty() ? (t.title.empty() ? t.name : t.title) : t.description;
    s.parameters = t.input_schema;
    out.push_back(std::move(s));
  }
  return out;
}

bool McpToolSource::repeatable(const std::string& name) const {
  const std::string& prefix = state_->cfg.tool_prefix;
  const std::string tool = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
  std::lock_guard<std::mutex> lock(state_->mu);
  for (const auto& t : state_->tools) {
    if (t.name != tool || !t.annotations.is_object()) continue;
    auto hint = [&](const char* key) {
      auto h = t.annotations.find(key);
      return h != t.annotations.end() && h->is_boolean() && h->get<bool>();
    };
    return hint("readOnlyHint") || hint("idempotentHint");
  }
  return false;
}

void McpToolSource::call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
                         std::function<void(company::ToolResult)> done) {
  const std::string& prefix = state_->cfg.tool_prefix;
  const std::string tool = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
  std::shared_ptr<McpClient> c;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->running || !state_->client) return done(company::ToolResult::error(state_->not_running_message()));
    const bool known =
        std::any_of(state_->tools.begin(), state_->tools.end(), [&](const McpToolInfo& t) { return t.name == tool; });
    if (!known) return done(company::ToolResult::error(state_->who() + " has no tool '" + tool + "' (any more)"));
    c = state_->client;
  }
  const std::string server = state_->cfg.name;
  c->call_tool(
      tool, args,
      [done, server, tool](Result<json> r) {
        if (!r.ok())
          return done(company::ToolResult::error("MCP tool '" + tool + "' of server '" + server +
                                                 "' failed: " + r.error().message));
        done(to_tool_result(server, tool, *r));
      },
      state_->cfg.timeout_ms, ctx.trace);
}

bool McpToolSource::running() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->running;
}

int McpToolSource::restarts() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return std::max(0, state_->connects - 1);
}

std::string McpToolSource::last_error() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->last_error;
}

std::string McpToolSource::server_name() const { return state_->cfg.name; }

int McpToolSource::child_pid() const {
  std::shared_ptr<McpClient> c;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    c = state_->client;
  }
  if (!c) return -1;
  auto* t = dynamic_cast<McpStdioClientTransport*>(&c->transport());
  return t ? t->pid() : -1;
}

}  // namespace kaisha::mcp
