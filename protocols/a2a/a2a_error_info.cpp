#include "protocols/a2a/a2a_error_info.hpp"

namespace kaisha::a2a {

std::optional<std::string> error_reason(int code) {
  switch (code) {
    case -32001: return "TASK_NOT_FOUND";
    case -32002: return "TASK_NOT_CANCELABLE";
    case -32003: return "PUSH_NOTIFICATION_NOT_SUPPORTED";
    case -32004: return "UNSUPPORTED_OPERATION";
    case -32005: return "CONTENT_TYPE_NOT_SUPPORTED";
    case -32006: return "INVALID_AGENT_RESPONSE";
    case -32007: return "EXTENDED_AGENT_CARD_NOT_CONFIGURED";
    case -32008: return "EXTENSION_SUPPORT_REQUIRED";
    case -32009: return "VERSION_NOT_SUPPORTED";
    default: return std::nullopt;
  }
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
  json metadata = json::object();
  if (auto data = err->find("data"); data != err->end()) {
    if (data->is_array()) return;  // already in the 1.0 shape
    if (data->is_object()) {
      for (const auto& [k, v] : data->items()) metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
    } else if (!data->is_null()) {
      metadata["data"] = data->is_string() ? data->get<std::string>() : data->dump();
    }
  }
  (*err)["data"] = json::array({json{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                                     {"reason", *reason},
                                     {"domain", "a2a-protocol.org"},
                                     {"metadata", std::move(metadata)}}});
}

}  // namespace kaisha::a2a
