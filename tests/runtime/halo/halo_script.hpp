// A scripted world for HaloDriver tests: every CallModel is answered by
// purpose from the script, every Ask by the script's agent, every Hire
// accepted unless the script says otherwise. The harness answers the
// effects in flight one at a time, first-in-first-out or last-in-first-out,
// so that a test can feed the same replies in two arrival orders.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/halo/halo_driver.hpp"
#include "runtime/halo/entry/halo_events.hpp"

namespace kaisha::halo::testing {

using namespace driver;

inline std::string last_user(const std::vector<llm::ChatMessage>& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (it->role == llm::Role::user) return it->content;
  return "";
}

// The rest of the line after `label` in `text` ("" when absent).
inline std::string line_after(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) return "";
  const size_t from = at + label.size();
  return text.substr(from, text.find('\n', from) - from);
}

// The text between `from` and `to` in `text` ("" when absent).
inline std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const size_t a = text.find(from);
  if (a == std::string::npos) return "";
  const size_t b = text.find(to, a + from.size());
  return text.substr(a + from.size(), b == std::string::npos ? std::string::npos : b - a - from.size());
}

inline size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

inline std::string json_string(const std::string& s) { return json(s).dump(); }

struct Script {
  using ModelReply = std::function<std::string(const std::string& prompt)>;
  std::map<std::string, ModelReply> model = defaults();
  // The agent's answer to a turn (its messages).
  std::function<std::string(const Ask&)> agent = [](const Ask&) { return std::string("ANSWER 5"); };
  // The tool calls the agent's answer to a turn asks for (default: none).
  std::function<std::vector<llm::ToolCall>(const Ask&)> agent_tool_calls = [](const Ask&) {
    return std::vector<llm::ToolCall>{};
  };
  // What a RunTool returns.
  std::function<company::ToolResult(const RunTool&)> tool = [](const RunTool& t) {
    return company::ToolResult::success("ran", json{{"stdout", "ran " + t.arguments}});
  };
  // An ask the agent does not answer (default: none).
  std::function<bool(const Ask&)> ask_fails = [](const Ask&) { return false; };
  std::function<HireAnswered(const Hire&)> hire = [](const Hire& h) {
    return HireAnswered{h.id, true, false, "", json::object()};
  };
  double expense = 0;  // USD of every call and ask
  // The ledgers' view the driver reads before its first call.
  json budget = json{{"resource_budget_enabled", true},
                     {"current_remaining_resource_budget", 100.0},
                     {"expense_budget_enabled", true},
                     {"current_remaining_expense_budget", 10.0}};

  static std::map<std::string, ModelReply> defaults() {
    std::map<std::string, ModelReply> m;
    m["halo.task_parser"] = [](const std::string&) {
      return std::string(
          R"({"Task Type": "arithmetic", "Core Intent": "add the numbers", "Key Details": "KD-7 exact integers"})");
    };
    m["halo.prompt_template"] = [](const std::string&) {
      return std::string(R"({"Generated Prompt Template": "TEMPLATE-Q0"})");
    };
    m["halo.prompt_optimizer"] = [](const std::string&) {
      return std::string(R"({"Optimized Prompt Template": "OPTIMIZED-QOPT"})");
    };
    m["halo.final_prompt"] = [](const std::string&) { return std::string(R"({"Final Prompt": "QSTAR add 2 and 3"})"); };
    // One subtask, then stop.
    m["halo.planner"] = [](const std::string& prompt) {
      return count_of(prompt, "[subtask ") == 0 ? std::string(R"({"next subtask": "step 1"})")
                                                : std::string(R"({"next subtask": "stop"})");
    };
    m["halo.role_design"] = [](const std::string&) { return std::string(R"({"agent roles": ["Solver", "Checker"]})"); };
    m["halo.agent_prompt_template"] = [](const std::string& p) {
      return R"({"Prompt Template": )" + json_string("TPL " + line_after(p, "Agent Role: ")) + "}";
    };
    m["halo.agent_prompt_optimizer"] = [](const std::string& p) {
      return R"({"Optimized Prompt Template": )" + json_string("OPT " + line_after(p, "Agent Role: ")) + "}";
    };
    m["halo.agent_final_prompt"] = [](const std::string& p) {
      return R"({"Final Prompt": )" + json_string("RHO " + line_after(p, "Agent Role: ")) + "}";
    };
    m["halo.judge"] = [](const std::string&) { return std::string(R"({"status": "success"})"); };
    m["halo.scorer"] = [](const std::string&) { return std::string(R"({"score": 0.8})"); };
    return m;
  }

  Outcome answer(const Effect& e) const {
    if (const auto* c = std::get_if<CallModel>(&e)) {
      auto it = model.find(c->purpose);
      EXPECT_NE(it, model.end()) << "no script for " << c->purpose;
      ModelAnswered a;
      a.id = c->id;
      a.ok = true;
      a.response.message.role = llm::Role::assistant;
      a.response.message.content = it == model.end() ? "" : it->second(last_user(c->request.messages));
      a.response.usage.input_tokens = 10;
      a.response.usage.output_tokens = 5;
      a.expense = expense;
      return a;
    }
    if (const auto* a = std::get_if<Ask>(&e)) {
      AskAnswered r;
      r.id = a->id;
      r.expense = expense;
      if (ask_fails(*a)) {
        r.ok = false;
        r.error = "model call failed: scripted";
        return r;
      }
      r.ok = true;
      r.reply.agent = a->agent;
      r.reply.output = agent(*a);
      r.reply.tool_requests = agent_tool_calls(*a);
      return r;
    }
    if (const auto* t = std::get_if<RunTool>(&e)) return ToolRan{t->id, tool(*t)};
    if (const auto* b = std::get_if<ReadBudget>(&e)) return BudgetRead{b->id, budget};
    return hire(std::get<Hire>(e));
  }
};

enum class Order { fifo, lifo };

class Harness {
 public:
  Harness(HaloDriver& driver, Script script, Order order = Order::fifo)
      : driver_(driver), script_(std::move(script)), order_(order) {}

  void start() { absorb(driver_.start()); }

  // Answers one effect in flight; false when none is.
  bool step() {
    if (pending_.empty()) return false;
    Effect e;
    if (order_ == Order::fifo) {
      e = pending_.front();
      pending_.pop_front();
    } else {
      e = pending_.back();
      pending_.pop_back();
    }
    absorb(driver_.on(script_.answer(e)));
    return true;
  }

  // Until nothing is in flight (or `max` outcomes, to end a runaway run).
  void run(size_t max = 100000) {
    for (size_t i = 0; i < max && step();) ++i;
  }

  // Until an effect for which `until` holds has been emitted.
  void run_until(const std::function<bool(const Effect&)>& until, size_t max = 100000) {
    for (size_t i = 0; i < max; ++i) {
      for (const Effect& e : effects)
        if (until(e)) return;
      if (!step()) return;
    }
  }

  void absorb(const Effects& out) {
    for (const Effect& e : out) {
      effects.push_back(e);
      if (std::holds_alternative<CallModel>(e) || std::holds_alternative<Ask>(e) || std::holds_alternative<Hire>(e) ||
          std::holds_alternative<ReadBudget>(e) || std::holds_alternative<RunTool>(e))
        pending_.push_back(e);
    }
  }

  Script& script() { return script_; }
  size_t in_flight() const { return pending_.size(); }

  template <class T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const Effect& e : effects)
      if (const T* t = std::get_if<T>(&e)) out.push_back(*t);
    return out;
  }
  std::vector<CallModel> calls(const std::string& purpose) const {
    std::vector<CallModel> out;
    for (const CallModel& c : all<CallModel>())
      if (c.purpose == purpose) out.push_back(c);
    return out;
  }
  std::vector<std::string> prompts(const std::string& purpose) const {
    std::vector<std::string> out;
    for (const CallModel& c : calls(purpose)) out.push_back(last_user(c.request.messages));
    return out;
  }
  // The strategy events reported, of sub-kind `event` ("" = all).
  std::vector<json> events(const std::string& event = "") const {
    std::vector<json> out;
    for (const Report& r : all<Report>())
      if (r.kind == msg::EventKind::strategy && (event.empty() || r.data.value("event", "") == event))
        out.push_back(r.data);
    return out;
  }
  // The journaled notes of sub-kind `event`.
  std::vector<json> notes(const std::string& event) const {
    std::vector<json> out;
    for (const Journal& j : all<Journal>())
      if (j.kind == msg::EventKind::note && j.payload.value("event", "") == event) out.push_back(j.payload);
    return out;
  }
  std::optional<Finish> finish() const {
    auto f = all<Finish>();
    EXPECT_LE(f.size(), 1u);
    if (f.empty()) return std::nullopt;
    return f.front();
  }
  std::vector<std::string> fired() const {
    std::vector<std::string> out;
    for (const Fire& f : all<Fire>()) out.push_back(f.agent);
    return out;
  }
  std::vector<std::string> hired() const {
    std::vector<std::string> out;
    for (const Hire& h : all<Hire>()) out.push_back(h.spec.name);
    return out;
  }

  Effects effects;

 private:
  HaloDriver& driver_;
  Script script_;
  Order order_;
  std::deque<Effect> pending_;
};

// The prompts shipped in prompts/halo/, loaded once.
inline std::shared_ptr<const HaloPrompts> shipped_prompts() {
  static const std::shared_ptr<const HaloPrompts> kPrompts = [] {
    Result<HaloPrompts> p = load_halo_prompts(KAISHA_SOURCE_DIR);
    EXPECT_TRUE(p.ok()) << p.error().message;
    return std::make_shared<const HaloPrompts>(p.ok() ? std::move(p).value() : HaloPrompts{});
  }();
  return kPrompts;
}

// A small search (depth 2, one rollout) and exact answer matching.
inline HaloSetup test_setup() {
  HaloSetup s;
  s.settings.search.max_depth = 2;
  s.settings.search.attempts = 1;
  s.settings.equivalence = answers::Equivalence::exact;
  s.settings.failure_answer = "FAILED";
  s.prompts = shipped_prompts();
  s.agent_cost.name = "backbone";
  s.agent_cost.model_ref = "mock:backbone";
  s.agent_cost.type = "cloud";
  s.agent_cost.create_resource_cost = 1;
  s.listening = [] { return true; };
  return s;
}

inline msg::TaskRequest test_task(const std::string& input = "RAWQ What is 2 + 3?") {
  msg::TaskRequest t;
  t.session_id = "s";
  t.task_id = "t1";
  t.input = input;
  return t;
}

}  // namespace kaisha::halo::testing
