// The HTTP+JSON ("REST") binding of A2A 1.0 (section 11; the routes are
// a2a.proto's google.api.http annotations), under `base` (e.g. /a2a/rest):
//
//   POST   /message:send                       SendMessage (body: SendMessageRequest)
//   POST   /message:stream                     SendStreamingMessage, text/event-stream
//   GET    /tasks/{id}?historyLength=N         GetTask
//   GET    /tasks?contextId=&status=&pageSize=&pageToken=&historyLength=&includeArtifacts=
//                                              ListTasks
//   POST   /tasks/{id}:cancel                  CancelTask
//   GET    /tasks/{id}:subscribe               SubscribeToTask, text/event-stream
//          (POST too, as section 11.3.2 lists it)
//   POST|GET|DELETE /tasks/{id}/pushNotificationConfigs[/{configId}]
//                                              push configs (not supported: 400)
//   GET    /extendedAgentCard                  GetExtendedAgentCard (none: 400)
//
// Every route calls A2aService's method of that name (the JSON-RPC
// binding's logic, validation and limits), with the body as its params and
// the path and query parameters added. A success is the method's result as
// the body (200); a stream's SSE events carry the results alone. An error
// is the status of A2A's table (404 TaskNotFound, 409 TaskNotCancelable,
// 415 content type, 400 for the other A2A errors and malformed input) with
// an AIP-193 body (a2a_error_info.hpp); any other path under `base` is 404
// in that shape. Bodies that are not JSON objects, query values of the
// wrong type and path or query text that is not UTF-8 get 400 saying what
// and where. A2A-Version: these routes speak 1.0 (no header means 1.0);
// another version gets 400 VersionNotSupported. The server's origin check,
// token and body limit apply first.
#pragma once

#include <memory>
#include <string>

#include "protocols/a2a/a2a_service.hpp"
#include "protocols/http/http_server.hpp"

namespace kaisha::a2a {

// Mounts the routes above (before the server's start()).
void mount_a2a_rest(protocols::HttpServer& server, std::shared_ptr<A2aService> service, const std::string& base);

}  // namespace kaisha::a2a
