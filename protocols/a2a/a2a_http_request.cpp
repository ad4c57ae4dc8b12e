#include "protocols/a2a/a2a_http_request.hpp"

#include <memory>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::a2a {

Status check_json_content_type(const protocols::HttpRequest& req) {
  std::string type = req.header("content-type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.pop_back();
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.erase(0, 1);
  type = ascii_lower(type);
  const auto ends_with = [&](std::string_view suffix) {
    return type.size() >= suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (type.empty() || type == "application/json" || ends_with("+json")) return Status::Ok();
  return Error{"content_type", "Content-Type " + type + " is not supported: send the request as application/json"};
}

std::string requested_version(const protocols::HttpRequest& req) {
  std::string version = req.header("a2a-version");
  if (version.empty()) {
    auto q = req.query.find("A2A-Version");
    if (q != req.query.end()) version = q->second;
  }
  return version;
}

std::string endpoint_url(const protocols::HttpServer& server, const protocols::HttpRequest& req,
                         const std::string& path) {
  const std::string host = req.header("host");
  return (host.empty() ? server.base_url() : "http://" + host) + path;
}

std::optional<json> serve_stream(A2aService& service, const jsonrpc::Request& request, protocols::HttpResponse& res,
                                 std::function<json(const json& event)> shape) {
  struct Opening {
    std::shared_ptr<protocols::SseWriter> writer;
    std::optional<json> refusal;
  };
  auto opening = std::make_shared<Opening>();
  auto stop = service.stream(
      request,
      [opening, &res, shape = std::move(shape)](const json& event) {
        // `res` is ours only until the first event has been handled, which
        // happens before stream() returns.
        if (!opening->writer) {
          if (event.contains("error")) {
            opening->refusal = event;
            return false;
          }
          opening->writer = res.start_sse();
        }
        return opening->writer->send(shape(event).dump(-1, ' ', false, json::error_handler_t::replace));
      },
      [opening] {
        if (opening->writer) opening->writer->close();
      });
  if (opening->refusal) {
    stop();
    return opening->refusal;
  }
  // The client went away (or the stream ended): release the subscription now.
  if (opening->writer) opening->writer->on_close(std::move(stop));
  return std::nullopt;
}

}  // namespace kaisha::a2a
