#include "protocols/acp/acp_client.hpp"

#include <chrono>
#include <memory>
#include <utility>

#include "protocols/acp/acp_run.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::acp {
namespace {

std::string strip_slashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// An error for a failed exchange: transport, or the server's ACP error body.
Error failure(const std::string& what, const http::HttpResult& r) {
  if (r.error != http::TransportError::none) {
    const char* code = r.error == http::TransportError::timeout   ? "timeout"
                       : r.error == http::TransportError::connect ? "connect"
                                                                  : "http";
    return Error{code, what + ": " + r.error_message};
  }
  json j = parse_json_or_discarded(utf8::repair(r.body));
  if (j.is_object() && j.contains("message") && j["message"].is_string())
    return Error{"acp", what + ": HTTP " + std::to_string(r.status) + " " + j.value("code", std::string()) + ": " +
                            j["message"].get<std::string>()};
  return Error{"http", what + ": HTTP " + std::to_string(r.status) + ": " + utf8::truncate(utf8::repair(r.body), 300)};
}

http::HttpRequestSpec request(const std::string& method, const std::string& url, const std::string& token,
                              std::string body = {}) {
  http::HttpRequestSpec req;
  req.method = method;
  req.url = url;
  req.headers = {{"Accept", "application/json"}};
  if (!body.empty()) req.headers.push_back({"Content-Type", "application/json"});
  if (!token.empty()) req.headers.push_back({"Authorization", "Bearer " + token});
  req.body = std::move(body);
  return req;
}

struct RunAsk : std::enable_shared_from_this<RunAsk> {
  http::HttpClient* http = nullptr;
  AcpClientOptions opt;
  AcpAgentAddress addr;
  std::function<void(Result<std::string>)> done;
  int64_t deadline_ms = 0;
  std::string run_id;

  std::string who() const { return "ACP agent " + addr.agent + " at " + addr.base_url; }
  http::HttpOptions http_options() const {
    http::HttpOptions o;
    o.timeout_ms = std::max<int64_t>(1, deadline_ms - steady_ms());
    o.connect_timeout_ms = opt.connect_timeout_ms;
    return o;
  }

  // Settles the ask from a Run object, or polls again while it runs.
  void on_run(const json& run) {
    if (!run.is_object() || !run.contains("status") || !run["status"].is_string())
      return done(Error{"acp", who() + ": the reply is not an ACP Run"});
    run_id = run.value("run_id", run_id);
    auto status = run_status_from(run["status"].get<std::string>());
    if (!status) return done(Error{"acp", who() + ": unknown run status '" + run["status"].get<std::string>() + "'"});
    switch (*status) {
      case RunStatus::completed:
        return done(output_text(run));
      case RunStatus::failed: {
        std::string why = "(no error given)";
        if (run.contains("error") && run["error"].is_object()) why = run["error"].value("message", why);
        return done(Error{"acp", who() + ": run " + run_id + " failed: " + why});
      }
      case RunStatus::cancelled:
        return done(Error{"acp", who() + ": run " + run_id + " was cancelled"});
      case RunStatus::awaiting:
        return done(Error{"acp", who() + ": run " + run_id + " awaits input kaisha cannot give"});
      default:
        break;
    }
    if (steady_ms() + opt.poll_interval_ms >= deadline_ms)
      return done(Error{
          "timeout", who() + ": run " + run_id + " did not finish within " + std::to_string(opt.timeout_ms) + " ms"});
    auto self = shared_from_this();
    http->schedule(std::chrono::milliseconds(opt.poll_interval_ms), [self] { self->poll(); });
  }

  void poll() {
    auto self = shared_from_this();
    http::HttpCallbacks cb;
    cb.on_done = [self](http::HttpResult r) {
      if (!r.ok()) return self->done(failure(self->who(), r));
      self->on_run(parse_json_or_discarded(utf8::repair(r.body)));
    };
    http->submit(request("GET", addr.base_url + "/runs/" + run_id, opt.bearer_token), http_options(), std::move(cb));
  }
};

}  // namespace

AcpAgentAddress parse_agent_address(std::string_view text) {
  AcpAgentAddress a;
  const auto hash = text.find('#');
  a.base_url = strip_slashes(std::string(text.substr(0, hash)));
  if (hash != std::string_view::npos) a.agent = std::string(text.substr(hash + 1));
  return a;
}

std::string output_text(const json& run) {
  std::string out;
  for (const auto& m : run.value("output", json::array())) {
    if (!m.is_object()) continue;
    for (const auto& p : m.value("parts", json::array())) {
      if (!p.is_object() || !p.contains("content") || !p["content"].is_string()) continue;
      if (p.value("content_encoding", std::string("plain")) != "plain") continue;
      out += p["content"].get<std::string>();
    }
  }
  return out;
}

AcpClient::AcpClient(http::HttpClient& http, AcpClientOptions options) : http_(http), options_(std::move(options)) {}

void AcpClient::fetch_manifest(const AcpAgentAddress& address, std::function<void(Result<json>)> done) {
  const std::string url = address.base_url + (address.agent.empty() ? "/agents" : "/agents/" + address.agent);
  http::HttpOptions o;
  o.timeout_ms = options_.timeout_ms;
  o.connect_timeout_ms = options_.connect_timeout_ms;
  o.max_response_bytes = 1u << 20;
  http::HttpCallbacks cb;
  cb.on_done = [done = std::move(done), url, any = address.agent.empty()](http::HttpResult r) {
    if (!r.ok()) return done(failure("ACP " + url, r));
    json j = parse_json_or_discarded(utf8::repair(r.body));
    if (any) {
      if (!j.is_object() || !j.contains("agents") || !j["agents"].is_array() || j["agents"].empty())
        return done(Error{"acp", "ACP " + url + ": no agents listed"});
      j = j["agents"][0];
    }
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
      return done(Error{"acp", "ACP " + url + ": not an agent manifest"});
    done(std::move(j));
  };
  http_.submit(request("GET", url, options_.bearer_token), o, std::move(cb));
}

void AcpClient::ask(const AcpAgentAddress& address, const std::string& text,
                    std::function<void(Result<std::string>)> done) {
  auto a = std::make_shared<RunAsk>();
  a->http = &http_;
  a->opt = options_;
  a->addr = address;
  a->done = std::move(done);
  a->deadline_ms = steady_ms() + options_.timeout_ms;
  json body{{"agent_name", address.agent},
            {"mode", "sync"},
            {"input", {{{"role", "user"}, {"parts", {{{"content_type", "text/plain"}, {"content", text}}}}}}}};
  http::HttpCallbacks cb;
  cb.on_done = [a](http::HttpResult r) {
    if (!r.ok()) return a->done(failure(a->who(), r));
    a->on_run(parse_json_or_discarded(utf8::repair(r.body)));
  };
  http_.submit(request("POST", address.base_url + "/runs", options_.bearer_token, body.dump()), a->http_options(),
               std::move(cb));
}

}  // namespace kaisha::acp
