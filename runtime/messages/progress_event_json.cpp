#include "runtime/messages/progress_event_json.hpp"

#include "runtime/core/json_string.hpp"
#include "runtime/core/json_text.hpp"

namespace kaisha::msg {
using namespace std::string_view_literals;

json progress_event_json(const ProgressEvent& e) {
  json j = {{"event", e.kind},  {"agent", e.agent},         {"text", e.text},
            {"data", e.data},   {"session", e.session_id},  {"task", e.task_id},
            {"at_ms", e.at_ms}, {"tokens_in", e.tokens_in}, {"tokens_out", e.tokens_out},
            {"usd", e.usd}};
  if (!e.node.empty()) j["node"] = e.node;
  return j;
}

std::string progress_event_line(const ProgressEvent& e) {
  // Keys in nlohmann's (sorted) order, so the text is the tree's.
  std::string out;
  out.reserve(512 + e.text.size());  // most lines fit: their data is a few hundred bytes
  out += R"({"agent":)"sv;
  append_json_string(out, e.agent);
  out += R"(,"at_ms":)"sv;
  append_json_integer(out, e.at_ms);
  out += R"(,"data":)"sv;
  append_json(out, e.data);
  out += R"(,"event":)"sv;
  append_json_string(out, event_kind_name(e.kind));
  if (!e.node.empty()) {
    out += R"(,"node":)"sv;
    append_json_string(out, e.node);
  }
  out += R"(,"session":)"sv;
  append_json_string(out, e.session_id);
  out += R"(,"task":)"sv;
  append_json_string(out, e.task_id);
  out += R"(,"text":)"sv;
  append_json_string(out, e.text);
  out += R"(,"tokens_in":)"sv;
  append_json_integer(out, e.tokens_in);
  out += R"(,"tokens_out":)"sv;
  append_json_integer(out, e.tokens_out);
  out += R"(,"usd":)"sv;
  append_json(out, json(e.usd));
  out += '}';
  return out;
}

namespace {

template <class T>
Status take(const json& j, const char* key, T& out, bool (json::*is)() const) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!((*it).*is)()) return Error{"event", std::string("event field '") + key + "' has the wrong type"};
  out = it->get<T>();
  return Status::Ok();
}

}  // namespace

Result<ProgressEvent> progress_event_from_json(const json& j) {
  if (!j.is_object()) return Error{"event", "an event must be a JSON object"};
  ProgressEvent e;
  auto kind = j.find("event");
  if (kind == j.end() || !kind->is_string()) return Error{"event", "event field 'event' (its kind) is missing"};
  auto k = parse_event_kind(kind->get<std::string>());
  if (!k) return Error{"event", "unknown event kind '" + kind->get<std::string>() + "'"};
  e.kind = *k;
  for (Status s :
       {take(j, "agent", e.agent, &json::is_string), take(j, "text", e.text, &json::is_string),
        take(j, "session", e.session_id, &json::is_string), take(j, "task", e.task_id, &json::is_string),
        take(j, "node", e.node, &json::is_string), take(j, "at_ms", e.at_ms, &json::is_number_integer),
        take(j, "tokens_in", e.tokens_in, &json::is_number_integer),
        take(j, "tokens_out", e.tokens_out, &json::is_number_integer), take(j, "usd", e.usd, &json::is_number)})
    if (!s.ok()) return s.error();
  if (auto d = j.find("data"); d != j.end() && !d->is_null()) e.data = *d;
  return e;
}

}  // namespace kaisha::msg
