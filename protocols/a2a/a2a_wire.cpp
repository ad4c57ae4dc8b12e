#include "protocols/a2a/a2a_wire.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <utility>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::a2a {
namespace {

Error bad(const std::string& where, const std::string& what) { return Error{"invalid_params", where + ": " + what}; }

struct MethodRow {
  const char* v1;
  const char* v03;  // "" when v0.3 has no such method
};
constexpr std::array<MethodRow, 7> kMethods{{
    {"SendMessage", "message/send"},
    {"SendStreamingMessage", "message/stream"},
    {"GetTask", "tasks/get"},
    {"CancelTask", "tasks/cancel"},
    {"SubscribeToTask", "tasks/resubscribe"},
    {"ListTasks", ""},
    {"GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"},
}};

struct StateRow {
  TaskState state;
  const char* v1;
  const char* v03;
};
constexpr std::array<StateRow, 8> kStates{{
    {TaskState::submitted, "TASK_STATE_SUBMITTED", "submitted"},
    {TaskState::working, "TASK_STATE_WORKING", "working"},
    {TaskState::input_required, "TASK_STATE_INPUT_REQUIRED", "input-required"},
    {TaskState::auth_required, "TASK_STATE_AUTH_REQUIRED", "auth-required"},
    {TaskState::completed, "TASK_STATE_COMPLETED", "completed"},
    {TaskState::failed, "TASK_STATE_FAILED", "failed"},
    {TaskState::canceled, "TASK_STATE_CANCELED", "canceled"},
    {TaskState::rejected, "TASK_STATE_REJECTED", "rejected"},
}};

struct CompanyStateRow {
  company::TaskState company;
  TaskState a2a;
};
constexpr std::array<CompanyStateRow, 6> kCompanyStates{{
    {company::TaskState::submitted, TaskState::submitted},
    {company::TaskState::working, TaskState::working},
    {company::TaskState::input_required, TaskState::input_required},
    {company::TaskState::completed, TaskState::completed},
    {company::TaskState::failed, TaskState::failed},
    {company::TaskState::canceled, TaskState::canceled},
}};

std::string str_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json message(std::string_view id, std::string_view role, std::string_view text, std::string_view context_id,
             std::string_view task_id, WireVersion v) {
  json m{{"messageId", id}, {"role", role}, {"parts", json::array({text_part(text, v)})}};
  if (!context_id.empty()) m["contextId"] = context_id;
  if (!task_id.empty()) m["taskId"] = task_id;
  if (v == WireVersion::v0_3) m["kind"] = "message";
  return m;
}

// An optional string member of a part: absent or null is fine, anything but
// a string is an error naming it.
Status optional_string(const json& obj, const char* key, const std::string& at) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null() || it->is_string()) return Status::Ok();
  return bad(at + "." + key, "must be a string");
}

// One part of a request's message, either era, in v1.0 shape.
Result<json> read_part(const json& p, const std::string& at) {
  if (!p.is_object()) return bad(at, "must be an object");
  json out = json::object();
  for (const char* key : {"metadata", "mediaType", "filename"})
    if (auto it = p.find(key); it != p.end() && !it->is_null()) out[key] = *it;
  for (const char* key : {"mediaType", "filename"})
    if (Status s = optional_string(p, key, at); !s.ok()) return s.error();
  if (auto t = p.find("text"); t != p.end()) {
    if (!t->is_string()) return bad(at + ".text", "must be a string");
    out["text"] = *t;
  } else if (auto d = p.find("data"); d != p.end()) {
    out["data"] = *d;
  } else if (auto r = p.find("raw"); r != p.end()) {
    if (!r->is_string()) return bad(at + ".raw", "must be a string (base64)");
    out["raw"] = *r;
  } else if (auto u = p.find("url"); u != p.end()) {
    if (!u->is_string()) return bad(at + ".url", "must be a string");
    out["url"] = *u;
  } else if (auto f = p.find("file"); f != p.end()) {
    // v0.3: {"kind": "file", "file": {"bytes" | "uri", "name", "mimeType"}}
    if (!f->is_object()) return bad(at + ".file", "must be an object");
    for (const char* key : {"bytes", "uri", "name", "mimeType"})
      if (Status s = optional_string(*f, key, at + ".file"); !s.ok()) return s.error();
    if (f->contains("bytes"))
      out["raw"] = (*f)["bytes"];
    else if (f->contains("uri"))
      out["url"] = (*f)["uri"];
    else
      return bad(at + ".file", "needs bytes or uri");
    if (f->contains("name")) out["filename"] = (*f)["name"];
    if (f->contains("mimeType")) out["mediaType"] = (*f)["mimeType"];
  } else {
    return bad(at, "has no content: a part holds text, data, raw or url");
  }
  return out;
}

}  // namespace

std::optional<MethodName> classify_method(std::string_view method) {
  for (const auto& row : kMethods) {
    if (method == row.v1) return MethodName{row.v1, WireVersion::v1_0};
    if (*row.v03 && method == row.v03) return MethodName{row.v1, WireVersion::v0_3};
  }
  return std::nullopt;
}

const json* proto_field(const json& obj, std::string_view json_name) {
  if (!obj.is_object()) return nullptr;
  if (auto it = obj.find(json_name); it != obj.end()) return &*it;
  std::string snake;
  for (char c : json_name) {
    if (c >= 'A' && c <= 'Z') {
      snake += '_';
      snake += ascii_lower(c);
    } else {
      snake += c;
    }
  }
  if (auto it = obj.find(snake); it != obj.end()) return &*it;
  return nullptr;
}

Result<WireVersion> parse_version_header(std::string_view value) {
  if (value.empty() || value == "0.3" || value == "0.3.0") return WireVersion::v0_3;
  if (value == "1.0" || value == "1.0.0" || value == "1") return WireVersion::v1_0;
  return Error{"-32009", "A2A version '" + std::string(value) + "' is not supported (supported: 1.0, 0.3)"};
}

std::string state_name(TaskState s, WireVersion v) {
  for (const auto& row : kStates)
    if (row.state == s) return v == WireVersion::v1_0 ? row.v1 : row.v03;
  return v == WireVersion::v1_0 ? "TASK_STATE_UNSPECIFIED" : "unknown";
}

TaskState a2a_state(company::TaskState s) {
  for (const auto& row : kCompanyStates)
    if (row.company == s) return row.a2a;
  return TaskState::working;
}

std::string state_name(company::TaskState s, WireVersion v) { return state_name(a2a_state(s), v); }

Result<RemoteState> parse_state(const json& value) {
  if (!value.is_string()) return bad("status.state", "must be a string");
  RemoteState r;
  r.name = value.get<std::string>();
  for (const auto& row : kCompanyStates) {
    if (r.name == state_name(row.a2a, WireVersion::v1_0) || r.name == state_name(row.a2a, WireVersion::v0_3)) {
      r.state = row.company;
      r.terminal = company::is_final(row.company);
      r.interrupted = row.company == company::TaskState::input_required;  // the peer waits for an answer
      return r;
    }
  }
  if (r.name == "TASK_STATE_REJECTED" || r.name == "rejected") {
    r.terminal = true;
  } else if (r.name == "TASK_STATE_INPUT_REQUIRED" || r.name == "input-required" ||
             r.name == "TASK_STATE_AUTH_REQUIRED" || r.name == "auth-required") {
    r.interrupted = true;
  } else if (r.name != "TASK_STATE_UNSPECIFIED" && r.name != "unknown") {
    return bad("status.state", "unknown task state '" + r.name + "'");
  }
  return r;
}

json text_part(std::string_view text, WireVersion v) {
  if (v == WireVersion::v0_3) return json{{"kind", "text"}, {"text", text}};
  return json{{"text", text}, {"mediaType", "text/plain"}};
}

json agent_message(std::string_view message_id, std::string_view text, std::string_view context_id,
                   std::string_view task_id, WireVersion v) {
  return message(message_id, v == WireVersion::v1_0 ? "ROLE_AGENT" : "agent", text, context_id, task_id, v);
}

json user_message(std::string_view message_id, std::string_view text, std::string_view context_id,
                  std::string_view task_id, WireVersion v) {
  return message(message_id, v == WireVersion::v1_0 ? "ROLE_USER" : "user", text, context_id, task_id, v);
}

std::string parts_text(const json& parts) {
  std::string out;
  if (!parts.is_array()) return out;
  for (const auto& p : parts) {
    if (!p.is_object()) continue;
    std::string piece;
    if (auto t = p.find("text"); t != p.end() && t->is_string()) {
      piece = t->get<std::string>();
    } else if (auto d = p.find("data"); d != p.end()) {
      // v1.0 carries a data part's value directly; v0.3 as {"data": {...}}.
      piece = d->dump();
    } else {
      continue;
    }
    if (!out.empty()) out += "\n";
    out += piece;
  }
  return out;
}

Result<IncomingMessage> read_message(const json& m, const std::string& where) {
  if (!m.is_object()) return bad(where, "must be an object");
  IncomingMessage out;
  for (auto [key, field] : {std::pair{"messageId", &out.message_id}, std::pair{"contextId", &out.context_id},
                            std::pair{"taskId", &out.task_id}}) {
    const json* v = proto_field(m, key);
    if (!v || v->is_null()) continue;
    if (!v->is_string()) return bad(where + "." + key, "must be a string");
    *field = v->get<std::string>();
  }
  auto role = m.find("role");
  if (role == m.end() || !role->is_string()) return bad(where + ".role", "is required (ROLE_USER or user)");
  const std::string r = role->get<std::string>();
  if (r == "ROLE_USER" || r == "user") {
    out.role = "user";
  } else if (r == "ROLE_AGENT" || r == "agent") {
    out.role = "agent";
  } else {
    return bad(where + ".role", "unknown role '" + r + "'");
  }
  auto parts = m.find("parts");
  if (parts == m.end() || !parts->is_array() || parts->empty())
    return bad(where + ".parts", "must be a non-empty array");
  for (size_t i = 0; i < parts->size(); ++i) {
    auto part = read_part((*parts)[i], where + ".parts[" + std::to_string(i) + "]");
    if (!part.ok()) return part.error();
    out.parts.push_back(std::move(*part));
  }
  if (auto md = m.find("metadata"); md != m.end() && !md->is_null()) {
    if (!md->is_object()) return bad(where + ".metadata", "must be an object");
    out.metadata = *md;
  }
  out.text = parts_text(out.parts);
  return out;
}

json part_json(const json& p, WireVersion v) {
  if (v == WireVersion::v1_0 || !p.is_object()) return p;
  json out = json::object();
  if (p.contains("metadata")) out["metadata"] = p["metadata"];
  if (p.contains("text")) {
    out["kind"] = "text";
    out["text"] = p["text"];
  } else if (p.contains("data")) {
    out["kind"] = "data";
    // v0.3 data parts hold an object.
    out["data"] = p["data"].is_object() ? p["data"] : json{{"value", p["data"]}};
  } else {
    json file = json::object();
    if (p.contains("raw")) file["bytes"] = p["raw"];
    if (p.contains("url")) file["uri"] = p["url"];
    if (p.contains("filename")) file["name"] = p["filename"];
    if (p.contains("mediaType")) file["mimeType"] = p["mediaType"];
    out["kind"] = "file";
    out["file"] = std::move(file);
  }
  return out;
}

json message_json(const json& m, WireVersion v) {
  if (v == WireVersion::v1_0 || !m.is_object()) return m;
  json out = m;
  const std::string role = m.value("role", "");
  out["role"] = role == "ROLE_AGENT" ? "agent" : role == "ROLE_USER" ? "user" : role;
  json parts = json::array();
  for (const auto& p : m.value("parts", json::array())) parts.push_back(part_json(p, v));
  out["parts"] = std::move(parts);
  out["kind"] = "message";
  return out;
}

std::string iso_timestamp(int64_t unix_ms) {
  const std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(unix_ms % 1000));
  return buf;
}

std::optional<int64_t> parse_iso_timestamp(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
      used != 19)
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  size_t i = 19;
  int64_t ms = 0;
  if (i < text.size() && text[i] == '.') {
    size_t digits = 0;
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits)
      if (digits < 3) ms = ms * 10 + (text[i] - '0');
    if (digits == 0) return std::nullopt;
    for (; digits < 3; ++digits) ms *= 10;
  }
  int64_t offset_s = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59) return std::nullopt;
    offset_s = (text[i] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return std::nullopt;  // a time without a zone is not one instant
  }
  if (i != text.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  const std::time_t t = timegm(&tm);
  if (tm.tm_mday != d && sec != 60) return std::nullopt;  // 31 February and the like
  return (static_cast<int64_t>(t) - offset_s) * 1000 + ms;
}

json artifact_json(const Artifact& a, WireVersion v) {
  json parts = json::array();
  for (const auto& p : a.parts) parts.push_back(part_json(p, v));
  json out{{"artifactId", a.id}, {"parts", std::move(parts)}};
  if (!a.name.empty()) out["name"] = a.name;
  return out;
}

json task_json(const AgentTask& task, WireVersion v, std::optional<int> history_length, bool include_artifacts) {
  json status{{"state", state_name(task.state, v)}, {"timestamp", iso_timestamp(task.updated_ms)}};
  if (!task.status_message.is_null()) status["message"] = message_json(task.status_message, v);
  json history = json::array();
  const size_t keep = history_length ? static_cast<size_t>(std::max(0, *history_length)) : task.history.size();
  const size_t first = task.history.size() > keep ? task.history.size() - keep : 0;
  for (size_t i = first; i < task.history.size(); ++i) history.push_back(message_json(task.history[i], v));
  json t{{"id", task.id}, {"contextId", task.context_id}, {"status", std::move(status)}};
  if (include_artifacts) {
    json artifacts = json::array();
    for (const auto& a : task.artifacts) artifacts.push_back(artifact_json(a, v));
    t["artifacts"] = std::move(artifacts);
  }
  t["history"] = std::move(history);
  t["metadata"] = task.metadata;
  if (v == WireVersion::v0_3) t["kind"] = "task";
  return t;
}

json send_result(const json& task, WireVersion v) {
  if (v == WireVersion::v0_3) return task;
  return json{{"task", task}};
}

json stream_task(const json& task, WireVersion v) { return send_result(task, v); }

json stream_status(std::string_view task_id, std::string_view context_id, TaskState state, int64_t at_ms,
                   const json& message, WireVersion v, const json& metadata) {
  json status{{"state", state_name(state, v)}, {"timestamp", iso_timestamp(at_ms)}};
  if (!message.is_null()) status["message"] = message_json(message, v);
  json u{{"taskId", task_id}, {"contextId", context_id}, {"status", std::move(status)}, {"metadata", metadata}};
  if (v == WireVersion::v1_0) return json{{"statusUpdate", std::move(u)}};
  u["kind"] = "status-update";
  u["final"] = is_terminal(state) || is_interrupted(state);
  return u;
}

json stream_artifact(std::string_view task_id, std::string_view context_id, const Artifact& artifact, bool append,
                     bool last_chunk, WireVersion v) {
  json u{{"taskId", task_id},
         {"contextId", context_id},
         {"artifact", artifact_json(artifact, v)},
         {"append", append},
         {"lastChunk", last_chunk}};
  if (v == WireVersion::v1_0) return json{{"artifactUpdate", std::move(u)}};
  u["kind"] = "artifact-update";
  return u;
}

json message_result(const json& v1_message, WireVersion v) {
  if (v == WireVersion::v0_3) return message_json(v1_message, v);
  return json{{"message", v1_message}};
}

Result<StreamEvent> read_stream_event(const json& result) {
  if (!result.is_object()) return bad("result", "must be an object");
  StreamEvent ev;
  // v1.0 wraps the payload in a one-key object; v0.3 tags it with `kind`.
  const std::string kind = str_member(result, "kind");
  if (result.contains("task") || kind == "task") {
    ev.kind = StreamEvent::Kind::task;
    ev.body = kind == "task" ? result : result["task"];
  } else if (result.contains("message") && kind.empty()) {
    ev.kind = StreamEvent::Kind::message;
    ev.body = result["message"];
  } else if (kind == "message") {
    ev.kind = StreamEvent::Kind::message;
    ev.body = result;
  } else if (result.contains("statusUpdate") || kind == "status-update") {
    ev.kind = StreamEvent::Kind::status;
    ev.body = kind.empty() ? result["statusUpdate"] : result;
  } else if (result.contains("artifactUpdate") || kind == "artifact-update") {
    ev.kind = StreamEvent::Kind::artifact;
    ev.body = kind.empty() ? result["artifactUpdate"] : result;
  } else {
    return bad("result", "is neither a task, a message, a status update nor an artifact update");
  }
  if (!ev.body.is_object()) return bad("result", "payload must be an object");
  const json& b = ev.body;
  switch (ev.kind) {
    case StreamEvent::Kind::message:
      ev.task_id = str_member(b, "taskId");
      ev.text = parts_text(b.value("parts", json::array()));
      break;
    case StreamEvent::Kind::task:
    case StreamEvent::Kind::status: {
      ev.task_id = str_member(b, ev.kind == StreamEvent::Kind::task ? "id" : "taskId");
      auto st = b.find("status");
      if (st == b.end() || !st->is_object()) return bad("result.status", "is required");
      auto state = parse_state(st->value("state", json()));
      if (!state.ok()) return state.error();
      ev.state = *state;
      if (auto m = st->find("message"); m != st->end() && m->is_object())
        ev.text = parts_text(m->value("parts", json::array()));
      if (ev.kind == StreamEvent::Kind::task && ev.state.state == company::TaskState::completed) {
        // A finished task's answer is in its artifacts.
        std::string all;
        for (const auto& a : b.value("artifacts", json::array())) {
          std::string t = a.is_object() ? parts_text(a.value("parts", json::array())) : "";
          if (t.empty()) continue;
          if (!all.empty()) all += "\n";
          all += t;
        }
        if (!all.empty()) ev.text = all;
      }
      break;
    }
    case StreamEvent::Kind::artifact: {
      ev.task_id = str_member(b, "taskId");
      auto a = b.find("artifact");
      if (a == b.end() || !a->is_object()) return bad("result.artifact", "is required");
      ev.text = parts_text(a->value("parts", json::array()));
      break;
    }
  }
  return ev;
}

}  // namespace kaisha::a2a
