#include "protocols/acp/acp_run.hpp"

#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <random>

#include "runtime/core/clock.hpp"

namespace kaisha::acp {
namespace {

constexpr std::array<std::pair<RunStatus, const char*>, 7> kNames{{
    {RunStatus::created, "created"},
    {RunStatus::in_progress, "in-progress"},
    {RunStatus::awaiting, "awaiting"},
    {RunStatus::cancelling, "cancelling"},
    {RunStatus::cancelled, "cancelled"},
    {RunStatus::completed, "completed"},
    {RunStatus::failed, "failed"},
}};

json text_part(std::string_view text) {
  return json{{"content_type", "text/plain"}, {"content", text}, {"content_encoding", "plain"}};
}

}  // namespace

const char* to_string(RunStatus s) {
  for (const auto& [st, name] : kNames)
    if (st == s) return name;
  return "failed";
}

std::optional<RunStatus> run_status_from(std::string_view s) {
  for (const auto& [st, name] : kNames)
    if (s == name) return st;
  return std::nullopt;
}

bool is_terminal(RunStatus s) {
  return s == RunStatus::completed || s == RunStatus::cancelled || s == RunStatus::failed;
}

RunStatus run_status_of(company::TaskState s) {
  switch (s) {
    case company::TaskState::submitted:
      return RunStatus::created;
    case company::TaskState::working:
      return RunStatus::in_progress;
    case company::TaskState::input_required:
      return RunStatus::awaiting;
    case company::TaskState::completed:
      return RunStatus::completed;
    case company::TaskState::failed:
      return RunStatus::failed;
    case company::TaskState::canceled:
      return RunStatus::cancelled;
  }
  return RunStatus::failed;
}

json error_body(std::string_view code, std::string_view message) { return json{{"code", code}, {"message", message}}; }

json text_message(std::string_view role, std::string_view text, std::string_view at) {
  return json{{"role", role}, {"parts", json::array({text_part(text)})}, {"created_at", at}, {"completed_at", at}};
}

Result<std::string> input_text(const json& input) {
  auto bad = [](const std::string& where, const std::string& what) {
    return Error{"invalid_input", where + ": " + what};
  };
  if (!input.is_array() || input.empty()) return bad("input", "must be a non-empty array of messages");
  std::string out;
  for (size_t i = 0; i < input.size(); ++i) {
    const json& m = input[i];
    const std::string at = "input[" + std::to_string(i) + "]";
    if (!m.is_object()) return bad(at, "must be a message object");
    auto parts = m.find("parts");
    if (parts == m.end() || !parts->is_array()) return bad(at + ".parts", "must be an array");
    std::string text;
    for (size_t j = 0; j < parts->size(); ++j) {
      const json& p = (*parts)[j];
      const std::string pat = at + ".parts[" + std::to_string(j) + "]";
      if (!p.is_object()) return bad(pat, "must be an object");
      const std::string type = p.value("content_type", std::string("text/plain"));
      if (p.contains("content_url") && !p["content_url"].is_null())
        return bad(pat, "content_url parts are not supported; send the content inline");
      if (type.rfind("text/", 0) != 0 && type != "application/json")
        return bad(pat, "content_type '" + type + "' is not supported (text/* or application/json)");
      if (p.value("content_encoding", std::string("plain")) != "plain")
        return bad(pat, "only plain content_encoding is supported");
      auto c = p.find("content");
      if (c == p.end() || c->is_null()) continue;
      if (!c->is_string()) return bad(pat + ".content", "must be a string");
      text += c->get<std::string>();
    }
    if (text.empty()) continue;
    if (!out.empty()) out += "\n\n";
    out += text;
  }
  if (out.empty()) return bad("input", "holds no text");
  return out;
}

json Run::to_json() const {
  json j{{"run_id", run_id},
         {"agent_name", agent_name},
         {"session_id", session_id.empty() ? json(nullptr) : json(session_id)},
         {"status", to_string(status)},
         {"await_request", nullptr},
         {"output", json::array()},
         {"error", nullptr},
         {"created_at", created_at},
         {"finished_at", finished_at.empty() ? json(nullptr) : json(finished_at)}};
  if (status == RunStatus::completed) j["output"].push_back(text_message("agent/" + agent_name, output, finished_at));
  if (status == RunStatus::failed) j["error"] = error_body("server_error", error);
  if (status == RunStatus::awaiting)
    j["await_request"] = json{{"type", "message"}, {"message", text_message("agent/" + agent_name, question, "")}};
  return j;
}

json run_event(const Run& run) {
  return json{{"type", std::string("run.") + to_string(run.status)}, {"run", run.to_json()}};
}

json message_created(std::string_view role, std::string_view at) {
  return json{{"type", "message.created"},
              {"message", {{"role", role}, {"parts", json::array()}, {"created_at", at}, {"completed_at", nullptr}}}};
}

json message_part(std::string_view text) { return json{{"type", "message.part"}, {"part", text_part(text)}}; }

json message_completed(std::string_view role, std::string_view text, std::string_view at) {
  return json{{"type", "message.completed"}, {"message", text_message(role, text, at)}};
}

json generic_event(const json& payload) { return json{{"type", "generic"}, {"generic", payload}}; }

std::string iso_of_ms(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

std::string iso_now() { return iso_of_ms(wall_ms()); }

}  // namespace kaisha::acp
