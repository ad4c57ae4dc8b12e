#include "protocols/telemetry/events_endpoint.hpp"

#include <set>

#include "runtime/core/json_text.hpp"
#include "runtime/messages/progress_event_json.hpp"

namespace kaisha::telemetry_http {
namespace {

struct Filter {
  std::string task, session;
  std::set<msg::EventKind> kinds;  // empty: every kind
  bool passes(const company::LoggedEvent& e) const {
    if (!task.empty() && e.task_id != task) return false;
    if (!session.empty() && e.session_id != session) return false;
    return kinds.empty() || kinds.count(e.kind) > 0;
  }
};

Result<Filter> filter_of(const protocols::HttpRequest& req) {
  Filter f;
  auto get = [&](const char* k) {
    auto it = req.query.find(k);
    return it == req.query.end() ? std::string() : it->second;
  };
  f.task = get("task");
  f.session = get("session");
  const std::string kinds = get("kinds");
  size_t start = 0;
  while (start < kinds.size()) {
    size_t comma = kinds.find(',', start);
    if (comma == std::string::npos) comma = kinds.size();
    const std::string name = kinds.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    auto k = msg::parse_event_kind(name);
    if (!k) return Error{"usage", "kinds: '" + name + "' is not an event kind (docs/events.md lists them)"};
    f.kinds.insert(*k);
  }
  return f;
}

}  // namespace

void mount_events(protocols::HttpServer& server, std::shared_ptr<company::EventLog> log) {
  const protocols::HttpServer* srv = &server;
  server.route("GET", "/events", [srv, log](const protocols::HttpRequest& req, protocols::HttpResponse& res) {
    if (Status s = srv->check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
    auto filter = filter_of(req);
    if (!filter.ok()) return res.set_error(400, "usage", filter.error().message);
    std::string after = req.header("last-event-id");
    if (auto it = req.query.find("after"); after.empty() && it != req.query.end()) after = it->second;
    auto writer = res.start_sse();
    writer->send_retry(2000);
    // The listener runs under the log's lock: it only queues (SseWriter::send
    // never blocks) and leaves once the stream has ended.
    auto listener = [writer, f = *filter](const std::string& id, const company::LoggedEvent& e) {
      if (writer->closed()) return false;
      if (!f.passes(e)) return true;
      return writer->send(e.line, {}, id);
    };
    auto sub = log->subscribe(after, listener, [writer, after] {
      writer->send(dump_text(json{{"after", after}, {"text", "some events after this id are no longer held"}}),
                   "missed");
    });
    if (sub.handle == 0) return;  // the stream ended during the replay
    writer->on_close([log, handle = sub.handle] { log->unsubscribe(handle); });
  });
}

}  // namespace kaisha::telemetry_http
