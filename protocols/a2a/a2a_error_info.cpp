#include "protocols/a2a/a2a_error_info.hpp"

namespace kaisha::a2a {

std::optional<std::string> error_reason(int code) {
  switch (code) {
    case -32001:
      return "TASK_NOT_FOUND";
    case -32002:
      return "TASK_NOT_CANCELABLE";
    case -32003:
      return "PUSH_NOTIFICATION_NOT_SUPPORTED";
    case -32004:
      return "UNSUPPORTED_OPERATION";
    case -32005:
      return "CONTENT_TYPE_NOT_SUPPORTED";
    case -32006:
      return "INVALID_AGENT_RESPONSE";
    case -32007:
      return "EXTENDED_AGENT_CARD_NOT_CONFIGURED";
    case -32008:
      return "EXTENSION_SUPPORT_REQUIRED";
    case -32009:
      return "VERSION_NOT_SUPPORTED";
    default:
      return std::nullopt;
  }
}

namespace {

// The ErrorInfo of an A2A error: its reason, and `data` kept as metadata
// (string values; others as JSON text).
json error_info(const std::string& reason, const json& data) {
  json metadata = json::object();
  if (data.is_object()) {
    for (const auto& [k, v] : data.items()) metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
  } else if (!data.is_null()) {
    metadata["data"] = data.is_string() ? data.get<std::string>() : data.dump();
  }
  return json{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
              {"reason", reason},
              {"domain", "a2a-protocol.org"},
              {"metadata", std::move(metadata)}};
}

}  // namespace

HttpErrorStatus http_error_status(int code) {
  switch (code) {
    case -32001:
      return {404, "NOT_FOUND"};
    case -32002:
      return {409, "FAILED_PRECONDITION"};
    case -32003:
      return {400, "UNIMPLEMENTED"};
    case -32004:
      return {400, "UNIMPLEMENTED"};
    case -32005:
      return {415, "INVALID_ARGUMENT"};
    case -32006:
      return {502, "INTERNAL"};
    case -32007:
      return {400, "FAILED_PRECONDITION"};
    case -32008:
      return {400, "FAILED_PRECONDITION"};
    case -32009:
      return {400, "UNIMPLEMENTED"};
    case -32700:
    case -32600:
    case -32602:
      return {400, "INVALID_ARGUMENT"};
    case -32601:
      return {404, "NOT_FOUND"};
    case -32050:
      return {429, "RESOURCE_EXHAUSTED"};  // kaisha's: a limit of kaisha serve
    default:
      return {500, "INTERNAL"};
  }
}

json rest_error_body(const json& rpc_error) {
  const json none;
  const auto member = [&](const char* key) -> const json& {
    auto it = rpc_error.is_object() ? rpc_error.find(key) : rpc_error.end();
    return it != rpc_error.end() ? *it : none;
  };
  const int code = member("code").is_number_integer() ? member("code").get<int>() : -32603;
  const HttpErrorStatus st = http_error_status(code);
  json details = json::array();
  if (auto reason = error_reason(code)) details.push_back(error_info(*reason, member("data")));
  return json{{"error",
               {{"code", st.http},
                {"status", st.status},
                {"message", member("message").is_string() ? member("message") : json("")},
                {"details", std::move(details)}}}};
}

void add_error_info(json& response) {
  if (response.is_array()) {
    for (json& r : response) add_error_info(r);
    return;
  }
  if (!response.is_object()) return;
  auto err = response.find("error");
  if (err == response.end() || !err->is_object()) return;
  auto code = err->find("code");
  if (code == err->end() || !code->is_number_integer()) return;
  auto reason = error_reason(code->get<int>());
  if (!reason) return;
  json data;
  if (auto d = err->find("data"); d != err->end()) {
    if (d->is_array()) return;  // already in the 1.0 shape
    data = *d;
  }
  (*err)["data"] = json::array({error_info(*reason, data)});
}

}  // namespace kaisha::a2a
