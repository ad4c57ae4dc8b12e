// hashiru's tree. What its journal holds (runtime/hashiru/hashiru_driver.cpp):
// the CEO's llm_request / llm_response per turn; a tool_call / tool_result
// pair per tool it calls, matched by call_id (AskAgent's arguments name the
// employee and the prompt: no separate ask step); the employee's answer step,
// under the employee's name, carrying what the ask cost; hire, fire and
// refusal steps; and the employees' own steps (their model calls, their tool
// calls matched by call_id) between the ask and its answer.
#include <deque>
#include <map>

#include "runtime/hashiru/entry/hashiru_view.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {

namespace {

using nlohmann::json;
using Id = TreeBuilder::Id;

// The CEO is whoever makes hashiru's own model requests (they carry the
// conversation's last message); "CEO" when the task never got that far.
std::string ceo_of(const std::vector<TaskStep>& steps) {
  for (const auto& s : steps)
    if (s.kind == "llm_request" && field(s.payload, "last_message").is_string()) return s.agent;
  return "CEO";
}

bool failed(const json& result) { return text_field(result, "status") == "error"; }

class HashiruTree {
 public:
  HashiruTree(const TaskRecord& task, const std::vector<TaskStep>& steps) : b_(task), ceo_(ceo_of(steps)) {}

  TaskTree build(const std::vector<TaskStep>& steps) {
    for (const auto& s : steps) {
      if (s.agent == ceo_)
        ceo_step(s);
      else
        employee_step(s);
    }
    for (auto& [agent, asks] : open_)
      for (Id a : asks)
        if (b_.node(a).status.empty()) b_.node(a).status = "unanswered";
    return b_.finish();
  }

 private:
  void ceo_step(const TaskStep& s) {
    if (s.kind == "llm_request") return new_turn(s.at);
    if (s.kind == "llm_response") return turn_answered(s);
    if (s.kind == "tool_call") return tool_called(s);
    if (s.kind == "tool_result") return tool_returned(s);
    if (s.kind == "refusal") return refused(s);
    if ((s.kind == "hire" || s.kind == "fire") && shown(s.kind, text_field(s.payload, "agent"))) return;
    b_.add(turn_, plain_step(s));
  }

  void new_turn(int64_t at) {
    TaskTree n;
    n.kind = "turn";
    n.agent = ceo_;
    n.label = ceo_ + " turn " + std::to_string(++turns_);
    turn_ = b_.add(TreeBuilder::kRoot, std::move(n), at);
    answered_ = false;
  }

  void turn_answered(const TaskStep& s) {
    // A response with no request before it (a resumed task) still makes a turn.
    if (turn_ == TreeBuilder::kRoot || answered_) new_turn(0);
    answered_ = true;
    b_.charge(turn_, s);
    b_.end(turn_, s.at);
    const json& calls = field(s.payload, "tool_calls");
    const size_t n = calls.is_array() ? calls.size() : 0;
    b_.node(turn_).label += n > 0 ? ": " + std::to_string(n) + " tool call" + (n == 1 ? "" : "s")
                                  : ": answers \"" + short_text(text_field(s.payload, "text"), 60) + "\"";
  }

  void tool_called(const TaskStep& s) {
    const std::string tool = text_field(s.payload, "tool");
    if (tool.empty()) return void(b_.add(turn_, plain_step(s)));
    const json args = arguments_of(field(s.payload, "arguments"));
    const std::string name = text_field(args, "agent_name");
    TaskTree n;
    n.agent = ceo_;
    if (tool == "AskAgent") {
      n.kind = "ask";
      n.agent = name;
      n.label = "ask " + name + ": \"" + short_text(text_field(args, "prompt"), 60) + "\"";
    } else if (tool == "AgentCreator") {
      n.kind = "hire";
      n.label = "hire " + name + " (" + text_field(args, "base_model") + ")";
    } else if (tool == "FireAgent") {
      n.kind = "fire";
      n.label = "fire " + name;
    } else {
      n.kind = "tool";
      n.label = "tool " + tool + " " + payload_text(args.is_null() ? field(s.payload, "arguments") : args);
    }
    // A tool the user called directly (no model turn) hangs off the task.
    const Id parent = field(s.payload, "direct").is_boolean() ? TreeBuilder::kRoot : turn_;
    const Id id = b_.add(parent, n, s.at);
    calls_[call_key(s)] = id;
    if (n.kind == "ask") open_[name].push_back(id);
    if (n.kind == "hire" || n.kind == "fire") by_agent_[n.kind + "\n" + name] = id;
  }

  void tool_returned(const TaskStep& s) {
    auto it = calls_.find(call_key(s));
    if (it == calls_.end()) return void(b_.add(turn_, plain_step(s)));
    const Id id = it->second;
    calls_.erase(it);
    b_.end(id, s.at);
    TaskTree& n = b_.node(id);
    if (n.status.empty() && failed(field(s.payload, "result"))) n.status = "failed";
    if (n.kind == "ask") close_ask(n.agent, id);
  }

  // A refused ask or hire: the node it belongs to says so.
  void refused(const TaskStep& s) {
    const std::string agent = text_field(s.payload, "agent");
    const std::string tool = text_field(s.payload, "tool");
    Id id = TreeBuilder::kRoot;
    if (tool == "AgentCreator") {
      auto h = by_agent_.find("hire\n" + agent);
      if (h != by_agent_.end()) id = h->second;
    } else if (auto q = open_.find(agent); q != open_.end() && !q->second.empty()) {
      id = q->second.front();
    }
    if (id == TreeBuilder::kRoot) return void(b_.add(turn_, plain_step(s)));
    b_.node(id).status = "refused";
    b_.node(id).label += " — " + short_text(text_field(s.payload, "error"), 60);
  }

  // The hire and fire steps repeat what AgentCreator / FireAgent said.
  bool shown(const std::string& kind, const std::string& agent) const {
    return by_agent_.count(kind + "\n" + agent) > 0;
  }

  void employee_step(const TaskStep& s) {
    auto q = open_.find(s.agent);
    const Id ask = q != open_.end() && !q->second.empty() ? q->second.front() : TreeBuilder::kRoot;
    if (ask == TreeBuilder::kRoot) {
      if (s.kind == "note" && field(s.payload, "verdict").is_object()) return verdict(s);
      return void(b_.add(turn_, plain_step(s)));
    }
    b_.end(ask, s.at);
    if (s.kind == "answer") {
      b_.charge(ask, s);
      // Answered: the agent's next ask (the same turn may ask it twice) is its own.
      close_ask(s.agent, ask);
      return;
    }
    // The employee's model calls are in its answer's cost.
    if (s.kind == "llm_request" || s.kind == "llm_response") return;
    if (s.kind == "tool_call" && !text_field(s.payload, "tool").empty()) {
      TaskTree n;
      n.kind = "tool";
      n.agent = s.agent;
      const json& args = field(s.payload, "arguments");
      const json parsed = arguments_of(args);
      n.label = "tool " + text_field(s.payload, "tool") + " " + payload_text(parsed.is_null() ? args : parsed);
      emp_calls_[s.agent + "\n" + call_key(s)] = b_.add(ask, std::move(n), s.at);
      return;
    }
    if (s.kind == "tool_result") {
      auto it = emp_calls_.find(s.agent + "\n" + call_key(s));
      if (it != emp_calls_.end()) {
        b_.end(it->second, s.at);
        if (failed(field(s.payload, "result"))) b_.node(it->second).status = "failed";
        emp_calls_.erase(it);
        return;
      }
    }
    TaskTree n = plain_step(s);
    if (s.kind == "error") n.status = "failed";
    b_.add(ask, std::move(n));
  }

  // The judge's audit of the CEO's answer (hashiru's `judge:` switch).
  void verdict(const TaskStep& s) {
    TaskTree n;
    n.kind = "verdict";
    n.agent = s.agent;
    const json& v = field(s.payload, "verdict");
    const std::string status = text_field(v, "status");
    n.label = s.agent + ": " + (status.empty() ? "verdict" : status);
    if (const std::string why = text_field(v, "error_information"); !why.empty())
      n.label += " — " + short_text(why, 80);
    if (status == "error") n.status = "failed";
    const Id id = b_.add(turn_, std::move(n), s.at);
    b_.charge(id, s);
  }

  void close_ask(const std::string& agent, Id id) {
    auto q = open_.find(agent);
    if (q == open_.end()) return;
    for (auto it = q->second.begin(); it != q->second.end(); ++it)
      if (*it == id) {
        q->second.erase(it);
        return;
      }
  }

  static std::string call_key(const TaskStep& s) {
    const json& id = field(s.payload, "call_id");
    return id.is_string() ? id.get<std::string>() : id.dump();
  }

  TreeBuilder b_;
  std::string ceo_;
  Id turn_ = TreeBuilder::kRoot;
  int turns_ = 0;
  bool answered_ = false;
  std::map<std::string, Id> calls_;             // the CEO's open tool calls by call_id
  std::map<std::string, Id> emp_calls_;         // an employee's open tool calls by agent + call_id
  std::map<std::string, std::deque<Id>> open_;  // each employee's asks not answered yet, oldest first
  std::map<std::string, Id> by_agent_;          // "hire\n<agent>" / "fire\n<agent>" -> its node
};

}  // namespace

TaskTree hashiru_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) {
  return HashiruTree(task, steps).build(steps);
}

}  // namespace kaisha::strategy
