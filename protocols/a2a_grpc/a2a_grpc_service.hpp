// The A2AService of a2a.proto (A2A 1.0 section 10) over an A2aService: each
// RPC calls the A2aService method of its name with the request as ProtoJSON
// params (a2a_grpc_json.hpp) and answers its result, so the gRPC binding
// keeps every rule, limit and error of the JSON-RPC and HTTP+JSON ones.
//
//   SendMessage, GetTask, ListTasks, CancelTask   unary
//   SendStreamingMessage, SubscribeToTask         server streams of
//                                                 StreamResponse: the Task
//                                                 first, then status and
//                                                 artifact updates until the
//                                                 task ends (or, for a new
//                                                 message, is interrupted)
//   the four push-notification RPCs               UNIMPLEMENTED with
//                                                 ErrorInfo
//                                                 PUSH_NOTIFICATION_NOT_SUPPORTED
//   GetExtendedAgentCard                          FAILED_PRECONDITION,
//                                                 EXTENDED_AGENT_CARD_NOT_CONFIGURED
//
// Errors are gRPC statuses with A2A's codes and ErrorInfo details
// (a2a_grpc_status.hpp). A request protobuf cannot parse (a string that is
// not UTF-8, malformed bytes) is INVALID_ARGUMENT naming its type. A stream whose first event is an error (unknown
// task, ended task, bad message) ends with that status before any message.
//
// Service parameters come as gRPC metadata (section 10.2): `a2a-version`
// must be 1.0 when present (absent means 1.0: this binding has no 0.3 form;
// another version is UNIMPLEMENTED, VERSION_NOT_SUPPORTED). With a bearer
// token configured, `authorization: Bearer <token>` is required
// (UNAUTHENTICATED otherwise).
//
// Threads: gRPC's synchronous server calls these on its own pool (bounded
// by A2aGrpcServer). A stream's events are written on the call's thread; the
// agent's threads only queue them (GrpcEventQueue, bounded), so no agent or
// actor thread waits on a slow peer.
#pragma once

#include <grpcpp/impl/service_type.h>

#include <cstddef>
#include <memory>
#include <string>

#include "protocols/a2a/a2a_service.hpp"

namespace kaisha::a2a {

struct A2aGrpcServiceOptions {
  std::string bearer_token;        // empty: none required
  size_t max_queued_events = 256;  // per stream; a peer this far behind is dropped
};

// The gRPC service; register it with a grpc::ServerBuilder. `service` is
// shared with the HTTP bindings.
std::unique_ptr<grpc::Service> make_a2a_grpc_service(std::shared_ptr<A2aService> service,
                                                     A2aGrpcServiceOptions options = {});

}  // namespace kaisha::a2a
