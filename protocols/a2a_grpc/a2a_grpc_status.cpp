#include "protocols/a2a_grpc/a2a_grpc_status.hpp"

#include <string>

#include "google_rpc_status.pb.h"
#include "protocols/a2a/a2a_error_info.hpp"

namespace kaisha::a2a {
namespace {

// A2aService names a bad field by its place in JSON-RPC's params
// ("params.message.role: ...", "Invalid params: params: missing required
// member 'id'"); on gRPC the request message is the params, so the field is
// named from there ("message.role: ...", "request: missing required member
// 'id'").
std::string request_wording(std::string message) {
  const std::string invalid = "Invalid params: ";
  if (message.rfind(invalid, 0) == 0) message.erase(0, invalid.size());
  if (message.rfind("params.", 0) == 0) return message.substr(7);
  if (message.rfind("params:", 0) == 0) return "request" + message.substr(6);
  return message;
}

}  // namespace

grpc::StatusCode grpc_code(int a2a_code) {
  switch (a2a_code) {
    case -32001:
      return grpc::StatusCode::NOT_FOUND;
    case -32002:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case -32003:
      return grpc::StatusCode::UNIMPLEMENTED;
    case -32004:
      return grpc::StatusCode::UNIMPLEMENTED;
    case -32005:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case -32006:
      return grpc::StatusCode::INTERNAL;
    case -32007:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case -32008:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case -32009:
      return grpc::StatusCode::UNIMPLEMENTED;
    case -32700:
    case -32600:
    case -32602:
      return grpc::StatusCode::INVALID_ARGUMENT;
    // A method the service does not know is a method this binding does not
    // serve.
    case -32601:
      return grpc::StatusCode::UNIMPLEMENTED;
    case -32050:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;  // kaisha's: a limit of kaisha serve
    default:
      return grpc::StatusCode::INTERNAL;
  }
}

grpc::Status grpc_status(const json& rpc_error) {
  const int code = rpc_error.is_object() && rpc_error.contains("code") && rpc_error["code"].is_number_integer()
                       ? rpc_error["code"].get<int>()
                       : -32603;
  std::string message = rpc_error.is_object() && rpc_error.contains("message") && rpc_error["message"].is_string()
                            ? rpc_error["message"].get<std::string>()
                            : std::string("internal error");
  message = request_wording(message);
  const grpc::StatusCode status_code = grpc_code(code);
  // The details' ErrorInfo is the one the HTTP+JSON binding sends (the
  // same reason, domain and metadata), taken from its AIP-193 body.
  const json rest = rest_error_body(json{{"code", code},
                                         {"message", message},
                                         {"data", rpc_error.is_object() ? rpc_error.value("data", json()) : json()}});
  google::rpc::Status details;
  details.set_code(static_cast<int>(status_code));
  details.set_message(message);
  for (const json& d : rest["error"]["details"]) {
    google::rpc::ErrorInfo info;
    info.set_reason(d.value("reason", ""));
    info.set_domain(d.value("domain", ""));
    const json metadata = d.value("metadata", json::object());
    for (const auto& [k, v] : metadata.items())
      (*info.mutable_metadata())[k] = v.is_string() ? v.get<std::string>() : v.dump();
    details.add_details()->PackFrom(info);
  }
  if (details.details_size() == 0) return grpc::Status(status_code, message);
  return grpc::Status(status_code, message, details.SerializeAsString());
}

grpc::Status grpc_status(int a2a_code, const std::string& message) {
  return grpc_status(json{{"code", a2a_code}, {"message", message}});
}

}  // namespace kaisha::a2a
