// What both A2A HTTP bindings (JSON-RPC in a2a_server.cpp, HTTP+JSON in
// a2a_rest.cpp) read and check of a request the same way.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "protocols/a2a/a2a_service.hpp"
#include "protocols/http/http_server.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::a2a {

// A body must say it is JSON, when it says anything: a form post or
// text/plain is refused (A2A's ContentTypeNotSupportedError) instead of
// failing later as a parse error. "application/json" and any "+json" type
// are accepted, parameters (charset) ignored.
Status check_json_content_type(const protocols::HttpRequest& req);

// The A2A-Version the request asks for: its header, else its query
// parameter, else "".
std::string requested_version(const protocols::HttpRequest& req);

// The URL of `path` on this server as the peer reached it (the Host it used,
// whatever address we bound).
std::string endpoint_url(const protocols::HttpServer& server, const protocols::HttpRequest& req,
                         const std::string& path);

// Runs a streaming request of `service` as `res`'s event stream, each event
// (a JSON-RPC response object) put in the binding's form by `shape` first.
// The stream opens with its first event, which the service delivers before
// it returns: when that event is an error (an unknown task, a task that has
// ended, a bad message) no stream is opened and the error response is
// returned, for the binding to answer as a plain error.
std::optional<json> serve_stream(A2aService& service, const jsonrpc::Request& request, protocols::HttpResponse& res,
                                 std::function<json(const json& event)> shape);

}  // namespace kaisha::a2a
