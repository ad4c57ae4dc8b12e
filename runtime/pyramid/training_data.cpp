#include "runtime/pyramid/training_data.hpp"

#include <algorithm>
#include <map>

namespace kaisha::pyramid {

namespace {

// The journal's payloads are read, never trusted: a field of the wrong type
// reads as absent.
int64_t call_of(const json& p) {
  auto it = p.find("call");
  return it != p.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

std::string text(const json& p, const char* key) {
  auto it = p.find(key);
  return it != p.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Tool arguments and results are journaled as JSON text; older or other
// writers may have stored the value itself.
std::string as_text(const json& p, const char* key) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

struct Branch {
  std::string agent;
  std::string model;
  bool merged = false;
};

struct Call {
  TrainingRecord record;
  std::string branch;
  bool answered = false;
  bool in_turn = false;  // the last step of this call was a tool call: the next one joins its turn
  int64_t answered_seq = 0;
};

json tool_call(const std::string& id, const std::string& name, const std::string& arguments) {
  return json{{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
}

}  // namespace

json TrainingRecord::chat(bool with_metadata) const {
  json messages = json::array();
  messages.push_back({{"role", "user"}, {"content", instruction}});
  int n = 0;
  for (const Turn& turn : turns) {
    json calls = json::array();
    json results = json::array();
    for (const Action& a : turn) {
      const std::string id = "call_" + std::to_string(++n);
      calls.push_back(tool_call(id, a.tool, a.arguments));
      results.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", a.result}});
    }
    messages.push_back({{"role", "assistant"}, {"content", ""}, {"tool_calls", std::move(calls)}});
    for (json& r : results) messages.push_back(std::move(r));
  }
  const std::string id = "call_" + std::to_string(++n);
  messages.push_back({{"role", "assistant"},
                      {"content", ""},
                      {"tool_calls", json::array({tool_call(id, "final_output", result.dump())})}});
  json line{{"messages", std::move(messages)}};
  if (with_metadata)
    line["metadata"] = {{"task", task_id}, {"call", call},       {"agent", agent},           {"staff", staff},
                        {"model", model},  {"verdict", verdict}, {"rejections", rejections}, {"at", at}};
  return line;
}

std::vector<TrainingRecord> main_branch_records(const std::vector<strategy::TaskStep>& steps,
                                                const std::string& task_id, const std::string& agent) {
  std::map<std::string, Branch> branches;       // by branch name, from the forks' notes
  std::map<std::string, std::string> model_of;  // staff -> the model ref of its first model call
  std::map<int64_t, Call> calls;
  for (const auto& s : steps) {
    const json& p = s.payload;
    if (!p.is_object()) continue;
    if (s.kind == "note" && p.contains("branches") && p["branches"].is_array()) {
      const std::string forked = text(p, "agent");
      for (const json& b : p["branches"]) {
        if (!b.is_object()) continue;
        auto merged = b.find("merged");
        branches[text(b, "branch")] =
            Branch{forked, text(b, "model"), merged != b.end() && merged->is_boolean() && merged->get<bool>()};
      }
      continue;
    }
    if (s.kind == "llm_request") {
      if (const std::string m = text(p, "model_ref"); !m.empty()) model_of.emplace(s.agent, m);
      continue;
    }
    const int64_t id = call_of(p);
    if (id < 0) continue;
    if (s.kind == "ask") {
      Call c;
      c.record.task_id = task_id;
      c.record.call = id;
      c.record.staff = s.agent;
      c.record.instruction = text(p, "input");
      c.branch = text(p, "branch");
      calls[id] = std::move(c);
      continue;
    }
    auto it = calls.find(id);
    if (it == calls.end()) continue;
    Call& c = it->second;
    if (s.kind == "tool_call") {
      if (!c.in_turn || c.record.turns.empty()) c.record.turns.emplace_back();
      c.record.turns.back().push_back({text(p, "tool"), as_text(p, "arguments"), ""});
      c.in_turn = true;
    } else if (s.kind == "tool_result") {
      c.in_turn = false;
      // The oldest call of that tool still waiting for its result.
      const std::string tool = text(p, "tool");
      bool filled = false;
      for (auto& turn : c.record.turns) {
        for (auto& a : turn)
          if (!filled && a.tool == tool && a.result.empty()) {
            a.result = as_text(p, "result");
            filled = !a.result.empty();
          }
        if (filled) break;
      }
    } else if (s.kind == "note" && p.contains("verdict") && p["verdict"].is_object()) {
      if (c.record.verdict.is_object() && text(c.record.verdict, "status") != "success") ++c.record.rejections;
      c.record.verdict = p["verdict"];
    } else if (s.kind == "answer" && p.contains("final_output") && p["final_output"].is_object()) {
      c.record.result = p["final_output"];
      c.record.result.erase("judge");
      c.record.at = s.at;
      c.answered = true;
      c.answered_seq = s.seq;
    }
  }

  std::vector<Call*> done;
  for (auto& [id, c] : calls) {
    if (!c.answered || text(c.record.result, "status") != "success") continue;
    if (!c.record.verdict.is_object() || text(c.record.verdict, "status") != "success") continue;
    c.record.agent = c.record.staff;
    c.record.model = model_of.count(c.record.staff) ? model_of[c.record.staff] : "";
    if (!c.branch.empty()) {
      auto b = branches.find(c.branch);
      if (b == branches.end() || !b->second.merged) continue;  // not (yet) on the main branch
      if (!b->second.agent.empty()) c.record.agent = b->second.agent;
      if (!b->second.model.empty()) c.record.model = b->second.model;
    }
    if (!agent.empty() && c.record.agent != agent) continue;
    done.push_back(&c);
  }
  std::sort(done.begin(), done.end(), [](const Call* a, const Call* b) { return a->answered_seq < b->answered_seq; });
  std::vector<TrainingRecord> out;
  out.reserve(done.size());
  for (Call* c : done) out.push_back(std::move(c->record));
  return out;
}

}  // namespace kaisha::pyramid
