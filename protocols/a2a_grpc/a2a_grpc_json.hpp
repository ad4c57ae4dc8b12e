// Protobuf messages of a2a.proto and the ProtoJSON A2aService speaks. The
// JSON-RPC binding's params and results are A2A 1.0's ProtoJSON (camelCase
// field names, enums by name, bytes as base64, timestamps as RFC 3339), so
// the gRPC binding converts a request to those params and a result back
// with protobuf's own JSON mapping, and A2aService keeps every rule.
#pragma once

#include <google/protobuf/message.h>

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::a2a {

// A request message as the params of the A2aService method of its name:
// fields at their defaults are left out, as a JSON-RPC client would.
json params_of(const google::protobuf::Message& request);

// Fills `out` from a result of A2aService. Fields the proto does not have
// (none in the 1.0 shapes) are ignored; a value of the wrong type is an
// Error saying which -- a defect of the service, not of the peer.
Status fill_from_json(const json& result, google::protobuf::Message& out);

}  // namespace kaisha::a2a
