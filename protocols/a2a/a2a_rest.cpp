#include "protocols/a2a/a2a_rest.hpp"

#include <charconv>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "protocols/a2a/a2a_error_info.hpp"
#include "protocols/a2a/a2a_http_request.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::a2a {
namespace {

using protocols::HttpRequest;
using protocols::HttpResponse;

// A JSON-RPC error object {code, message} answered as HTTP+JSON.
void answer_error(HttpResponse& res, const json& rpc_error) {
  json body = rest_error_body(rpc_error);
  res.set_json(body["error"]["code"].get<int>(), body);
}

void answer_error(HttpResponse& res, const Error& e) {
  const jsonrpc::RpcError r = jsonrpc::to_rpc_error(e);
  answer_error(res, json{{"code", r.code}, {"message", r.message}, {"data", r.data}});
}

void answer_error(HttpResponse& res, int rpc_code, const std::string& message) {
  answer_error(res, json{{"code", rpc_code}, {"message", message}});
}

// A route's call of an A2aService method, or the error that stops it.
struct Call {
  std::string method;
  json params = json::object();
};
using CallOrError = Result<Call>;

Error invalid(const std::string& message) { return jsonrpc::app_error(jsonrpc::code::kInvalidParams, message); }

// The request body as the method's params: a JSON object (an empty body is
// an empty object), read under the service's size and nesting limits.
Result<json> body_params(const HttpRequest& req, const JsonLimits& limits) {
  if (req.body.empty()) return json::object();
  BoundedJson parsed = parse_bounded_json(req.body, limits);
  if (!parsed.ok) return jsonrpc::app_error(jsonrpc::code::kParseError, "request body: " + parsed.error.message);
  if (!parsed.value.is_object()) return invalid("request body: must be a JSON object");
  return std::move(parsed.value);
}

// Query parameters (section 11.5): camelCase names, numbers and booleans as
// text; each value is checked here, where it enters.
Status copy_query(const HttpRequest& req, json& params, std::initializer_list<const char*> strings,
                  std::initializer_list<const char*> integers, std::initializer_list<const char*> booleans) {
  for (const char* key : strings) {
    auto it = req.query.find(key);
    if (it != req.query.end()) params[key] = it->second;
  }
  for (const char* key : integers) {
    auto it = req.query.find(key);
    if (it == req.query.end()) continue;
    const std::string& v = it->second;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || v.empty())
      return invalid(std::string("query parameter ") + key + ": must be an integer, got '" + v + "'");
    params[key] = n;
  }
  for (const char* key : booleans) {
    auto it = req.query.find(key);
    if (it == req.query.end()) continue;
    if (it->second != "true" && it->second != "false")
      return invalid(std::string("query parameter ") + key + ": must be true or false, got '" + it->second + "'");
    params[key] = it->second == "true";
  }
  return Status::Ok();
}

// What every route checks before it reads anything; false when it answered.
bool admit(const protocols::HttpServer& server, const HttpRequest& req, HttpResponse& res) {
  if (Status s = server.check_origin(req); !s.ok()) {
    res.set_json(403,
                 json{{"error", {{"code", 403}, {"status", "PERMISSION_DENIED"}, {"message", s.error().message}}}});
    return false;
  }
  const std::string version = requested_version(req);
  if (!version.empty()) {
    auto v = parse_version_header(version);
    if (!v.ok()) {
      answer_error(res, code::kVersionNotSupported, v.error().message);
      return false;
    }
    if (*v != WireVersion::v1_0) {
      answer_error(res, code::kVersionNotSupported,
                   "A2A version '" + version +
                       "' is not supported on the HTTP+JSON binding, which speaks 1.0 "
                       "(0.3 clients: use the JSON-RPC endpoint)");
      return false;
    }
  }
  if (!req.body.empty()) {
    if (Status s = check_json_content_type(req); !s.ok()) {
      answer_error(res, code::kContentTypeNotSupported, s.error().message);
      return false;
    }
  }
  for (const auto& p : req.path_params) {
    if (!utf8::valid(p)) {
      answer_error(res, jsonrpc::code::kInvalidParams, "path: a path segment is not valid UTF-8");
      return false;
    }
  }
  for (const auto& [k, v] : req.query) {
    if (!utf8::valid(k) || !utf8::valid(v)) {
      answer_error(res, jsonrpc::code::kInvalidParams, "query: a parameter is not valid UTF-8");
      return false;
    }
  }
  return true;
}

class RestBinding {
 public:
  RestBinding(protocols::HttpServer& server, std::shared_ptr<A2aService> service)
      : server_(server), service_(std::move(service)) {}

  // A unary route: `make` turns the request into a call of the service.
  protocols::HttpHandler unary(std::function<CallOrError(const HttpRequest&)> make) {
    return [this, make = std::move(make)](const HttpRequest& req, HttpResponse& res) {
      if (!admit(server_, req, res)) return;
      CallOrError call = make(req);
      if (!call.ok()) return answer_error(res, call.error());
      std::optional<json> response;
      jsonrpc::Request r{call->method, std::move(call->params), 1, false};
      service_->dispatcher().dispatch(r, jsonrpc::Context{},
                                      [&](std::optional<json> out) { response = std::move(out); });
      // Every A2A handler is synchronous, so the answer is here by now.
      if (!response) return answer_error(res, jsonrpc::code::kInternalError, "no answer from " + call->method);
      if (auto e = response->find("error"); e != response->end()) return answer_error(res, *e);
      res.set_json(200, (*response)["result"]);
    };
  }

  // A streaming route: the SSE events carry the method's results alone.
  protocols::HttpHandler streaming(std::function<CallOrError(const HttpRequest&)> make) {
    return [this, make = std::move(make)](const HttpRequest& req, HttpResponse& res) {
      if (!admit(server_, req, res)) return;
      CallOrError call = make(req);
      if (!call.ok()) return answer_error(res, call.error());
      jsonrpc::Request r{call->method, std::move(call->params), 1, false};
      auto refusal = serve_stream(*service_, r, res, [](const json& event) {
        if (auto e = event.find("error"); e != event.end()) return rest_error_body(*e);
        return event.value("result", json::object());
      });
      if (refusal) answer_error(res, refusal->value("error", json::object()));
    };
  }

  const JsonLimits& limits() const { return service_->dispatcher().limits().body; }

 private:
  protocols::HttpServer& server_;
  std::shared_ptr<A2aService> service_;
};

std::string regex_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void mount_a2a_rest(protocols::HttpServer& server, std::shared_ptr<A2aService> service, const std::string& base) {
  auto b = std::make_shared<RestBinding>(server, std::move(service));
  const std::string root = regex_escape(base);
  const std::string id = "([^/]+)";  // a task id: one path segment (decoded)

  // A call whose params are the body; `extra` adds the path's parameters.
  auto from_body = [b](std::string method, std::function<void(const HttpRequest&, json&)> extra = nullptr) {
    return [b, method = std::move(method), extra = std::move(extra)](const HttpRequest& req) -> CallOrError {
      auto params = body_params(req, b->limits());
      if (!params.ok()) return params.error();
      if (extra) extra(req, *params);
      return Call{method, std::move(*params)};
    };
  };
  auto task_id = [](const HttpRequest& req, json& params) { params["id"] = req.path_params.at(0); };
  auto push_ids = [](const HttpRequest& req, json& params) {
    params["taskId"] = req.path_params.at(0);
    if (req.path_params.size() > 1 && !req.path_params[1].empty()) params["id"] = req.path_params[1];
  };

  // Ordered: ":cancel" and ":subscribe" before the plain task route.
  server.route("POST", root + "/message:send", b->unary(from_body("SendMessage")));
  server.route("POST", root + "/message:stream", b->streaming(from_body("SendStreamingMessage")));
  server.route("POST", root + "/tasks/" + id + ":cancel", b->unary(from_body("CancelTask", task_id)));
  for (const char* method : {"GET", "POST"})
    server.route(method, root + "/tasks/" + id + ":subscribe", b->streaming(from_body("SubscribeToTask", task_id)));
  server.route("GET", root + "/tasks/" + id + "/pushNotificationConfigs/([^/]+)",
               b->unary(from_body("GetTaskPushNotificationConfig", push_ids)));
  server.route("GET", root + "/tasks/" + id + "/pushNotificationConfigs",
               b->unary(from_body("ListTaskPushNotificationConfigs", push_ids)));
  server.route("POST", root + "/tasks/" + id + "/pushNotificationConfigs",
               b->unary(from_body("CreateTaskPushNotificationConfig", push_ids)));
  server.route("DELETE", root + "/tasks/" + id + "/pushNotificationConfigs/([^/]+)",
               b->unary(from_body("DeleteTaskPushNotificationConfig", push_ids)));
  server.route("GET", root + "/tasks/" + id, b->unary([](const HttpRequest& req) -> CallOrError {
    Call c{"GetTask", json{{"id", req.path_params.at(0)}}};
    if (Status s = copy_query(req, c.params, {}, {"historyLength"}, {}); !s.ok()) return s.error();
    return c;
  }));
  server.route("GET", root + "/tasks/?", b->unary([](const HttpRequest& req) -> CallOrError {
    Call c{"ListTasks"};
    if (Status s = copy_query(req, c.params, {"contextId", "status", "pageToken", "statusTimestampAfter"},
                              {"pageSize", "historyLength"}, {"includeArtifacts"});
        !s.ok())
      return s.error();
    return c;
  }));
  server.route("GET", root + "/extendedAgentCard",
               b->unary([](const HttpRequest&) -> CallOrError { return Call{"GetExtendedAgentCard"}; }));
  // Anything else under the base: A2A's 404, in the binding's error shape.
  for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
    server.route(method, root + "(/.*)?", [](const HttpRequest& req, HttpResponse& res) {
      answer_error(res, jsonrpc::code::kMethodNotFound,
                   "no A2A operation at " + req.method + " " + utf8::repair(req.path) +
                       " (HTTP+JSON binding: POST /message:send, POST /message:stream, GET /tasks/{id}, GET /tasks, "
                       "POST /tasks/{id}:cancel, GET /tasks/{id}:subscribe)");
    });
  }
}

}  // namespace kaisha::a2a
