// A scripted world for HivaDriver tests: every CallModel is answered by the
// script's reply for its purpose (the longest key that begins it: "reward"
// answers "reward a"), every Ask by the script's agent, every RunTool by the
// script's tool, every Hire accepted. The harness answers the effects in
// flight one at a time, first-in-first-out or last-in-first-out, so that a
// test can feed the same replies in two arrival orders, and keeps a
// timeline of what was emitted and answered, in order.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/hiva_driver.hpp"
#include "runtime/hiva/hiva_setup.hpp"
#include "runtime/memory/hashed_ngram_embedder.hpp"

namespace kaisha::hiva::driver_testing {

using namespace kaisha::driver;

inline std::string last_user(const std::vector<llm::ChatMessage>& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (it->role == llm::Role::user) return it->content;
  return "";
}

inline std::string first_system(const std::vector<llm::ChatMessage>& messages) {
  for (const llm::ChatMessage& m : messages)
    if (m.role == llm::Role::system) return m.content;
  return "";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The text between `from` and `to` in `text` ("" when `from` is absent).
inline std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const size_t a = text.find(from);
  if (a == std::string::npos) return "";
  const size_t b = text.find(to, a + from.size());
  return text.substr(a + from.size(), b == std::string::npos ? std::string::npos : b - a - from.size());
}

// What follows `prefix ` in `purpose` ("agent feedback a" -> "a").
inline std::string subject_of(const std::string& purpose, const std::string& prefix) {
  return purpose.size() > prefix.size() + 1 ? purpose.substr(prefix.size() + 1) : "";
}

inline std::string agent_feedback_reply(const std::string& agent, const std::string& tool = "None") {
  return "SYSTEM_PROMPT_FEEDBACK: SPF-" + agent + "\nTOOL_FEEDBACK: " + tool + "\nOVERALL_FEEDBACK: OVF-" + agent;
}

inline const char* kHighParallel =
    "CAN_PARALLELIZE: True\nSUBTASKS_COUNT: 3\nCOORDINATION_REQUIRED: Low\nPARALLEL_BENEFIT: High";
inline const char* kLowParallel =
    "CAN_PARALLELIZE: True\nSUBTASKS_COUNT: 2\nCOORDINATION_REQUIRED: High\nPARALLEL_BENEFIT: Low";
inline const char* kValidTool =
    "```python\ndef tool_function(input_data, **kwargs):\n    return str(input_data).upper()\n```";

struct Script {
  using ModelReply = std::function<std::string(const std::string& purpose, const std::string& prompt)>;
  std::map<std::string, ModelReply> model = defaults();
  // The agent's answer ("OUT of hiva-a"; the aggregator: "FINAL ANSWER").
  std::function<std::string(const Ask&)> agent = [](const Ask& a) {
    return a.agent == "hiva-aggregator" ? std::string("FINAL ANSWER") : "OUT of " + a.agent;
  };
  std::function<bool(const Ask&)> ask_fails = [](const Ask&) { return false; };
  // A model call that fails (default: none).
  std::function<bool(const CallModel&)> call_fails = [](const CallModel&) { return false; };
  std::function<bool(const Hire&)> hire_refused = [](const Hire&) { return false; };
  std::function<company::ToolResult(const RunTool&)> tool = [](const RunTool& t) {
    if (t.tool == kEnvironmentTool)
      return company::ToolResult::success("checked",
                                          json{{"success", false}, {"text", "ENV says the answer is wrong"}});
    if (t.tool == kValidateTool) return company::ToolResult::success("valid");
    return company::ToolResult::success("ran", "TOOL RESULT 42");
  };
  double expense = 0;  // USD of every call and ask

  static std::map<std::string, ModelReply> defaults() {
    std::map<std::string, ModelReply> m;
    m["instruction"] = [](const std::string& purpose, const std::string&) {
      return "INSTR " + subject_of(purpose, "instruction");
    };
    m["self-critique"] = [](const std::string&, const std::string&) {
      return std::string("<FEEDBACK>CRITIQUE be more precise</FEEDBACK>");
    };
    m["system feedback"] = [](const std::string&, const std::string&) {
      return std::string("<FEEDBACK>SYSFB fix the final answer</FEEDBACK>");
    };
    m["agent feedback"] = [](const std::string& purpose, const std::string&) {
      return agent_feedback_reply(subject_of(purpose, "agent feedback"));
    };
    m["reward"] = [](const std::string&, const std::string&) { return std::string("POSITIVE"); };
    m["prompt update"] = [](const std::string&, const std::string& prompt) {
      return "<IMPROVED_VARIABLE>" + between(prompt, "Current variable: ", "\n\nRole:") +
             " Be precise.</IMPROVED_VARIABLE>";
    };
    m["tool"] = [](const std::string&, const std::string&) { return std::string(kValidTool); };
    m["parallelizability"] = [](const std::string&, const std::string&) { return std::string(kLowParallel); };
    m["topology"] = [](const std::string&, const std::string&) { return std::string("NO_CHANGE: fine as it is"); };
    m["new agent for"] = [](const std::string& purpose, const std::string&) {
      return "<SYSTEM_PROMPT>You are a new helper of " + subject_of(purpose, "new agent for") + ".</SYSTEM_PROMPT>";
    };
    return m;
  }

  // The longest key that is the purpose or begins it followed by a space.
  const ModelReply* reply_for(const std::string& purpose) const {
    const ModelReply* best = nullptr;
    size_t best_size = 0;
    for (const auto& [key, reply] : model)
      if ((purpose == key || purpose.rfind(key + " ", 0) == 0) && key.size() >= best_size) {
        best = &reply;
        best_size = key.size();
      }
    return best;
  }

  Outcome answer(const Effect& e) const {
    if (const auto* c = std::get_if<CallModel>(&e)) {
      const ModelReply* reply = reply_for(c->purpose);
      EXPECT_NE(reply, nullptr) << "no script for " << c->purpose;
      ModelAnswered a;
      a.id = c->id;
      a.expense = expense;
      if (call_fails(*c)) {
        a.error = "model call failed: scripted";
        return a;
      }
      a.ok = true;
      a.response.message.role = llm::Role::assistant;
      a.response.message.content = reply ? (*reply)(c->purpose, last_user(c->request.messages)) : "";
      a.response.usage.input_tokens = 10;
      a.response.usage.output_tokens = 5;
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
      return r;
    }
    if (const auto* t = std::get_if<RunTool>(&e)) return ToolRan{t->id, tool(*t)};
    const Hire& h = std::get<Hire>(e);
    if (hire_refused(h)) return HireAnswered{h.id, false, true, "the budget has no room", json::object()};
    return HireAnswered{h.id, true, false, "", json::object()};
  }
};

// "call <purpose>", "ask <agent>", "tool <name>", "hire <agent>", ... .
inline std::string describe(const Effect& e) {
  if (const auto* c = std::get_if<CallModel>(&e)) return "call " + c->purpose;
  if (const auto* a = std::get_if<Ask>(&e)) return "ask " + a->agent;
  if (const auto* t = std::get_if<RunTool>(&e)) return "tool " + t->tool;
  if (const auto* h = std::get_if<Hire>(&e)) return "hire " + h->spec.name;
  if (const auto* f = std::get_if<Fire>(&e)) return "fire " + f->agent;
  if (std::holds_alternative<Finish>(e)) return "finish";
  if (std::holds_alternative<SaveState>(e)) return "save";
  return "other";
}

enum class Order { fifo, lifo };

class Harness {
 public:
  Harness(HivaDriver& driver, Script script, Order order = Order::fifo)
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
    deliver(e);
    return true;
  }

  // Until nothing is in flight (or `max` outcomes, to end a runaway run).
  void run(size_t max = 100000) {
    for (size_t i = 0; i < max && step();) ++i;
  }

  // Answers, first-in-first-out, only the effects for which `answer` holds,
  // until none in flight does; the others stay in flight.
  void run_only(const std::function<bool(const Effect&)>& answer, size_t max = 100000) {
    for (size_t i = 0; i < max; ++i) {
      auto it = pending_.begin();
      while (it != pending_.end() && !answer(*it)) ++it;
      if (it == pending_.end()) return;
      Effect e = *it;
      pending_.erase(it);
      deliver(e);
    }
  }

  void absorb(const Effects& out) {
    for (const Effect& e : out) {
      effects.push_back(e);
      timeline.push_back("emit " + describe(e));
      if (std::holds_alternative<CallModel>(e) || std::holds_alternative<Ask>(e) || std::holds_alternative<Hire>(e) ||
          std::holds_alternative<RunTool>(e))
        pending_.push_back(e);
    }
  }

  // Feeds an outcome the script did not make (a late or foreign one).
  void feed(const Outcome& o) { absorb(driver_.on(o)); }
  void cancel(const std::string& why) { absorb(driver_.cancel(why)); }

  const std::deque<Effect>& in_flight() const { return pending_; }

  template <class T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const Effect& e : effects)
      if (const T* t = std::get_if<T>(&e)) out.push_back(*t);
    return out;
  }
  // The model calls whose purpose is `purpose` or begins with `purpose `.
  std::vector<CallModel> calls(const std::string& purpose) const {
    std::vector<CallModel> out;
    for (const CallModel& c : all<CallModel>())
      if (c.purpose == purpose || c.purpose.rfind(purpose + " ", 0) == 0) out.push_back(c);
    return out;
  }
  std::vector<std::string> prompts(const std::string& purpose) const {
    std::vector<std::string> out;
    for (const CallModel& c : calls(purpose)) out.push_back(last_user(c.request.messages));
    return out;
  }
  std::vector<Ask> asks(const std::string& agent) const {
    std::vector<Ask> out;
    for (const Ask& a : all<Ask>())
      if (a.agent == agent) out.push_back(a);
    return out;
  }
  std::vector<RunTool> tools(const std::string& tool) const {
    std::vector<RunTool> out;
    for (const RunTool& t : all<RunTool>())
      if (t.tool == tool) out.push_back(t);
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
  // The position of the first timeline entry equal to `entry` (npos: none).
  size_t when(const std::string& entry) const {
    for (size_t i = 0; i < timeline.size(); ++i)
      if (timeline[i] == entry) return i;
    return std::string::npos;
  }

  Effects effects;
  std::vector<std::string> timeline;  // "emit <effect>", "answer <effect>", in order

 private:
  void deliver(const Effect& e) {
    timeline.push_back("answer " + describe(e));
    absorb(driver_.on(script_.answer(e)));
  }

  HivaDriver& driver_;
  Script script_;
  Order order_;
  std::deque<Effect> pending_;
};

// The built-in embedder, as the strategy makes it.
inline Embed shipped_embed() {
  static const auto kEmbedder = std::make_shared<memory::HashedNgramEmbedder>();
  return [](const std::string& text) { return kEmbedder->embed_one(text); };
}

// The prompts shipped in prompts/hiva/, loaded once.
inline std::shared_ptr<const HivaPromptSet> shipped_prompts() {
  static const std::shared_ptr<const HivaPromptSet> kPrompts = [] {
    auto set = std::make_shared<HivaPromptSet>();
    for (HivaPrompt p : kHivaPrompts) {
      auto t = load_hiva_prompt(p, KAISHA_SOURCE_DIR);
      EXPECT_TRUE(t.ok()) << t.error().message;
      if (t) set->emplace(p, std::move(t).value());
    }
    return set;
  }();
  return kPrompts;
}

// data/hiva/knowledge.json, embedded with the built-in embedder.
inline std::shared_ptr<const KnowledgeGraph> shipped_knowledge() {
  static const std::shared_ptr<const KnowledgeGraph> kGraph = [] {
    auto kg = read_knowledge_graph(std::string(KAISHA_SOURCE_DIR) + "/data/hiva/knowledge.json");
    EXPECT_TRUE(kg.ok()) << kg.error().message;
    if (!kg) return std::shared_ptr<const KnowledgeGraph>();
    kg->embed_nodes(shipped_embed());
    return std::make_shared<const KnowledgeGraph>(std::move(kg).value());
  }();
  return kGraph;
}

inline HivaSetup test_setup() {
  HivaSetup s;
  s.prompts = shipped_prompts();
  s.knowledge = shipped_knowledge();
  s.embed = shipped_embed();
  s.agent_cost.name = "backbone";
  s.agent_cost.model_ref = "mock:backbone";
  s.agent_cost.type = "cloud";
  s.listening = [] { return true; };
  return s;
}

inline msg::TaskRequest test_task(const std::string& input = "What is 2 + 3?") {
  msg::TaskRequest t;
  t.session_id = "s";
  t.task_id = "t1";
  t.input = input;
  return t;
}

inline GraphAgent graph_agent(const std::string& id) {
  GraphAgent a;
  a.id = id;
  a.role = id + " role";
  a.prompt = "You are agent " + id + " of the team.";
  a.tool_version = 0;
  return a;
}

// source, aggregator, then `agents` in order; exactly `edges`, in order.
inline AgentGraph graph_of(const std::vector<std::string>& agents,
                           const std::vector<std::pair<std::string, std::string>>& edges) {
  AgentGraph g = AgentGraph::singleton(graph_agent("source"), graph_agent("aggregator"));
  EXPECT_TRUE(g.remove_edge("source", "aggregator").ok());
  for (const std::string& id : agents) EXPECT_TRUE(g.add_agent(graph_agent(id)).ok()) << id;
  for (const auto& [from, to] : edges) EXPECT_TRUE(g.add_edge(from, to).ok()) << from << "->" << to;
  return g;
}

inline AgentGraph singleton_graph() { return graph_of({}, {{"source", "aggregator"}}); }

}  // namespace kaisha::hiva::driver_testing
