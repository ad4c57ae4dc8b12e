// A2A errors as gRPC statuses (A2A 1.0 sections 5.4 and 10.6). A2aService
// answers errors as JSON-RPC error objects {code, message, data?}; the gRPC
// binding sends each as a grpc::Status whose code is A2A's table --
// TaskNotFound NOT_FOUND, TaskNotCancelable FAILED_PRECONDITION,
// PushNotificationNotSupported and UnsupportedOperation UNIMPLEMENTED,
// ContentTypeNotSupported INVALID_ARGUMENT, InvalidAgentResponse INTERNAL,
// ExtendedAgentCardNotConfigured and ExtensionSupportRequired
// FAILED_PRECONDITION, VersionNotSupported UNIMPLEMENTED; malformed
// requests (-32700, -32600, -32602) INVALID_ARGUMENT, anything else
// INTERNAL -- and whose details (the grpc-status-details-bin trailer, a
// google.rpc.Status) carry a google.rpc.ErrorInfo for A2A's own errors:
// reason "TASK_NOT_FOUND" etc., domain "a2a-protocol.org", the error's data
// as string metadata.
#pragma once

#include <grpcpp/support/status.h>

#include "runtime/core/json.hpp"

namespace kaisha::a2a {

grpc::StatusCode grpc_code(int a2a_code);

// The gRPC status of a JSON-RPC error object.
grpc::Status grpc_status(const json& rpc_error);

// A status of `code` (an A2A or JSON-RPC error code) and `message`.
grpc::Status grpc_status(int a2a_code, const std::string& message);

}  // namespace kaisha::a2a
