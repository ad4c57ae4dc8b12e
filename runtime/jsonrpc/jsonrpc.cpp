#include "runtime/jsonrpc/jsonrpc.hpp"

#include <exception>
#include <utility>

#include "runtime/core/json_parse_error.hpp"
#include "runtime/core/params_check.hpp"

namespace kaisha::jsonrpc {
namespace {

const char* type_name(const json& v) { return json_kind(v, JsonIntegers::as_numbers); }

json invalid(const json& id, const std::string& what) {
  return make_error(id, code::kInvalidRequest, "Invalid Request: " + what);
}

std::optional<RpcError> read_error_object(const json& e, std::string& why) {
  if (!e.is_object()) {
    why = "\"error\" must be an object, got " + std::string(type_name(e));
    return std::nullopt;
  }
  auto c = e.find("code");
  if (c == e.end() || !c->is_number_integer()) {
    why = "\"error.code\" must be an integer";
    return std::nullopt;
  }
  auto m = e.find("message");
  if (m == e.end() || !m->is_string()) {
    why = "\"error.message\" must be a string";
    return std::nullopt;
  }
  RpcError out{c->get<int>(), m->get<std::string>(), nullptr};
  if (auto d = e.find("data"); d != e.end()) out.data = *d;
  return out;
}

}  // namespace

std::string_view standard_message(int c) {
  switch (c) {
    case code::kParseError:
      return "Parse error";
    case code::kInvalidRequest:
      return "Invalid Request";
    case code::kMethodNotFound:
      return "Method not found";
    case code::kInvalidParams:
      return "Invalid params";
    case code::kInternalError:
      return "Internal error";
    default:
      return "";
  }
}

Status check_body_size(size_t bytes, size_t limit) {
  if (bytes <= limit) return Status::Ok();
  return Error{"too_large", "request body of " + std::to_string(bytes) + " bytes exceeds the limit of " +
                                std::to_string(limit) + " bytes"};
}

json make_result(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const json& id, const RpcError& error) {
  json e{{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) e["data"] = error.data;
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

json make_error(const json& id, int c, std::string message, json data) {
  return make_error(id, RpcError{c, std::move(message), std::move(data)});
}

json make_request(const json& id, std::string_view method, json params) {
  json r{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) r["params"] = std::move(params);
  return r;
}

json make_notification(std::string_view method, json params) {
  json r{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) r["params"] = std::move(params);
  return r;
}

Message parse_message(const json& v) {
  if (!v.is_object()) {
    return invalid(nullptr, "expected a JSON object, got " + std::string(type_name(v)));
  }
  // The id first: every later complaint is echoed with it when it is usable.
  json id = nullptr;
  const auto id_it = v.find("id");
  const bool has_id = id_it != v.end();
  if (has_id) {
    if (!(id_it->is_string() || id_it->is_number() || id_it->is_null())) {
      return invalid(nullptr, "\"id\" must be a string, a number or null, got " + std::string(type_name(*id_it)));
    }
    id = *id_it;
  }
  const auto ver = v.find("jsonrpc");
  if (ver == v.end()) return invalid(id, "missing member \"jsonrpc\": \"2.0\"");
  if (!ver->is_string() || ver->get_ref<const std::string&>() != "2.0") {
    return invalid(id, "\"jsonrpc\" must be exactly \"2.0\", got " + ver->dump());
  }

  const auto method = v.find("method");
  if (method == v.end()) {
    const auto result = v.find("result");
    const auto error = v.find("error");
    if (result == v.end() && error == v.end()) return invalid(id, "missing member \"method\"");
    if (!has_id) return invalid(nullptr, "a response must carry an \"id\"");
    if (result != v.end() && error != v.end()) {
      return invalid(id, "a response must not carry both \"result\" and \"error\"");
    }
    IncomingResponse r;
    r.id = id;
    if (result != v.end()) {
      r.result = *result;
      return r;
    }
    std::string why;
    r.error = read_error_object(*error, why);
    if (!r.error) return invalid(id, why);
    return r;
  }
  if (!method->is_string()) {
    return invalid(id, "\"method\" must be a string, got " + std::string(type_name(*method)));
  }
  Request req;
  req.method = method->get<std::string>();
  req.id = id;
  req.notification = !has_id;
  if (auto p = v.find("params"); p != v.end()) {
    if (!p->is_object() && !p->is_array()) {
      return invalid(id, "\"params\" must be an object or an array, got " + std::string(type_name(*p)));
    }
    req.params = *p;
  }
  return req;
}

ParsedBody parse_body(std::string_view body, const Limits& limits) {
  ParsedBody out;
  auto single = [&](json error) {
    out.messages.emplace_back(std::move(error));
    return out;
  };
  BoundedJson parsed = parse_bounded_json(body, limits.body);
  if (!parsed.ok) {
    const JsonParseError& e = parsed.error;
    switch (e.kind) {
      case JsonParseError::Kind::too_large:
        return single(make_error(nullptr, code::kInvalidRequest, "Invalid Request: " + e.message,
                                 json{{"limit", limits.body.max_bytes}, {"size", body.size()}}));
      case JsonParseError::Kind::too_deep:
        return single(make_error(nullptr, code::kInvalidRequest, "Invalid Request: " + e.message,
                                 json{{"line", e.line}, {"column", e.column}, {"limit", limits.body.max_depth}}));
      case JsonParseError::Kind::syntax:
        return single(make_error(nullptr, code::kParseError, "Parse error: " + e.message,
                                 json{{"line", e.line}, {"column", e.column}, {"byte", e.byte}}));
    }
  }
  json doc = std::move(parsed.value);
  if (!doc.is_array()) {
    out.messages.push_back(parse_message(doc));
    return out;
  }
  if (doc.empty()) return single(invalid(nullptr, "empty batch"));
  if (doc.size() > limits.max_batch) {
    return single(invalid(nullptr, "batch of " + std::to_string(doc.size()) + " elements exceeds the limit of " +
                                       std::to_string(limits.max_batch)));
  }
  out.batch = true;
  out.messages.reserve(doc.size());
  for (const auto& element : doc) out.messages.push_back(parse_message(element));
  return out;
}

std::optional<json> join_responses(bool batch, std::vector<json> responses) {
  if (responses.empty()) return std::nullopt;
  if (!batch) return std::move(responses.front());
  json arr = json::array();
  for (auto& r : responses) arr.push_back(std::move(r));
  return arr;
}

}  // namespace kaisha::jsonrpc
