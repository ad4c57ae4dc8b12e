// The zero-latency model of the HiVA benchmarks: a pure function from a
// conversation to a well-formed reply, chosen by the opening of the system
// prompt (HiVA's own calls, prompts/hiva/) or of the last user message (a
// graph agent's step or the aggregation). The same replies answer HivaDriver
// in-process and kaisha's runtime through a ChatClient, so both run the same
// forward pass.
//
// Every reply parses without a problem, so the driver takes its ordinary
// path: instructions name their successor, agents answer a paragraph, the
// critiques and gradients have every field (TOOL_FEEDBACK "None": no agent
// has a tool, so every semantic update rewrites a prompt), rewards and
// topology decisions come from a hash of the prompt (a third of the
// decisions ADD_SERIAL, a third REMOVE_SUCCESSOR least_visited, the rest
// NO_CHANGE), and no task is found parallelizable.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/company/chat_client.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::bench {

class InstantHivaModel {
 public:
  // Whether the conversation is a graph agent's turn (an agent step or the
  // aggregation: one per activated agent), not one of HiVA's own calls.
  static bool is_agent_turn(const std::vector<llm::ChatMessage>& messages) {
    const std::string& u = last_of(messages, llm::Role::user);
    return u.rfind("Instruction: ", 0) == 0 || u.rfind("Original instruction: ", 0) == 0;
  }

  static std::string reply(const std::vector<llm::ChatMessage>& messages) {
    const std::string& s = first_of(messages, llm::Role::system);
    const std::string& u = last_of(messages, llm::Role::user);
    auto system = [&s](const char* opening) { return s.rfind(opening, 0) == 0; };
    const size_t h = std::hash<std::string>{}(u);
    if (system("You are an instruction generator"))
      return "Instruction: as " + line_after(u, "SUCCESSOR AGENT ID: ") +
             ", take the figures found so far, do your part of the comparison and report what you relied on.";
    if (system("You are an output aggregator reviewing"))
      return "<FEEDBACK>The answer is sound, but it names no source for the second figure and does not say why "
             "the cheapest option was set aside.</FEEDBACK>";
    if (system("You are an output aggregator generating"))
      return "<FEEDBACK>The predecessors should name the source of each figure and state the budget check "
             "explicitly.</FEEDBACK>";
    if (system("Analyze successor feedback"))
      return "SYSTEM_PROMPT_FEEDBACK: State the source of every figure you pass on.\nTOOL_FEEDBACK: None\n"
             "OVERALL_FEEDBACK: Keep the budget constraint visible in every step.";
    if (system("You classify the feedback")) return h % 4 == 0 ? "CRITICAL" : h % 4 == 1 ? "NEUTRAL" : "POSITIVE";
    if (system("Generate an improved system prompt"))
      return "<IMPROVED_VARIABLE>" + between(u, "Current variable: ", "\n\nRole: ") +
             " Name the source of every figure you use.</IMPROVED_VARIABLE>";
    if (system("You analyze whether a task can be split"))
      return "CAN_PARALLELIZE: False\nSUBTASKS_COUNT: 0\nCOORDINATION_REQUIRED: None\nPARALLEL_BENEFIT: None";
    if (system("You are a network topology optimizer"))
      return h % 3 == 0   ? "ADD_SERIAL: A fact checker who verifies each figure before it is passed on"
             : h % 3 == 1 ? "REMOVE_SUCCESSOR: least_visited"
                          : "NO_CHANGE: the successors cover the task";
    if (system("You write system prompts for new agents"))
      return "<SYSTEM_PROMPT>You are a fact checker. You receive the previous agent's findings, verify each figure "
             "against its source, and pass on only what you could verify, saying which.</SYSTEM_PROMPT>";
    if (u.rfind("Original instruction: ", 0) == 0) return "Take option " + std::to_string(h % 3 + 1) + ". " + kFiller;
    // A graph agent's step: a paragraph that depends on what it was told.
    return "Option " + std::to_string(h % 3 + 1) + " fits best so far. " + kFiller;
  }

 private:
  static constexpr const char* kFiller =
      "The first option costs least but misses the second requirement; the second meets every requirement "
      "within the budget; the third exceeds the budget by a fifth.";

  static const std::string& first_of(const std::vector<llm::ChatMessage>& messages, llm::Role role) {
    static const std::string kNone;
    for (const auto& m : messages)
      if (m.role == role) return m.content;
    return kNone;
  }

  static const std::string& last_of(const std::vector<llm::ChatMessage>& messages, llm::Role role) {
    static const std::string kNone;
    for (auto it = messages.rbegin(); it != messages.rend(); ++it)
      if (it->role == role) return it->content;
    return kNone;
  }

  static std::string line_after(const std::string& text, const std::string& label) {
    const size_t at = text.find(label);
    if (at == std::string::npos) return "";
    const size_t from = at + label.size();
    return text.substr(from, text.find('\n', from) - from);
  }

  static std::string between(const std::string& text, const std::string& open, const std::string& close) {
    const size_t at = text.find(open);
    if (at == std::string::npos) return "";
    const size_t from = at + open.size();
    return text.substr(from, text.find(close, from) - from);
  }
};

// The model behind kaisha's runtime: answers at once, on the caller's
// thread, and counts the graph agents' turns (activated agents) and all the
// calls it answered.
class InstantHivaBackend : public company::ChatClient {
 public:
  Status check_model(const std::string&) const override { return Status::Ok(); }
  void chat(const std::string&, llm::ChatRequest req, company::ChatHandlers h) override {
    llm::ChatResponse r;
    r.model = "stub";
    r.message.role = llm::Role::assistant;
    r.message.content = InstantHivaModel::reply(req.messages);
    r.usage.input_tokens = 12;
    r.usage.output_tokens = 3;
    r.finish_reason = "stop";
    if (InstantHivaModel::is_agent_turn(req.messages)) ++agent_turns_;
    ++calls_;
    h.on_done(std::move(r));
  }
  uint64_t agent_turns() const { return agent_turns_.load(); }
  uint64_t calls() const { return calls_.load(); }

 private:
  std::atomic<uint64_t> agent_turns_{0};
  std::atomic<uint64_t> calls_{0};
};

}  // namespace kaisha::bench
