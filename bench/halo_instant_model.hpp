// The zero-latency model of the HALO benchmarks: a pure function from a
// conversation to HALO's reply, chosen by the opening of the last user
// message (prompts/halo/). The same replies answer HaloDriver in-process and
// kaisha's runtime through a ChatClient, so both see the same search.
//
// The replies keep the search busy: the planner names `subtasks` subtasks and
// then says stop, the role designer names `roles` roles, the judge always
// says continue (so every search runs to depth D or its caps), the scorer's
// score comes from a hash of what it scores, and every agent's answer names
// its subtask (the subtasks' answers differ, so no early stop).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/company/chat_client.hpp"
#include "runtime/core/json.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::bench {

class InstantHaloModel {
 public:
  InstantHaloModel(int subtasks, int roles) : subtasks_(subtasks), roles_(roles) {}

  // Whether the conversation is a role agent's solve request (a node
  // evaluation's ask), not one of HALO's own calls.
  static bool is_solve(const std::vector<llm::ChatMessage>& messages) {
    return last_user(messages).rfind("Using the details below", 0) == 0;
  }

  std::string reply(const std::vector<llm::ChatMessage>& messages) const {
    const std::string& p = last_user(messages);
    auto starts = [&p](const char* s) { return p.rfind(s, 0) == 0; };
    if (starts("You are the Task Parser Agent"))
      return R"({"Task Type": "analysis", "Core Intent": "compare the options", "Key Details": "three options, one budget"})";
    if (starts("You are the Prompt Template Agent for subtask"))
      return R"({"Prompt Template": )" + quoted("TPL " + line_after(p, "Agent Role: ")) + "}";
    if (starts("You are the Prompt Optimizer Agent for subtask"))
      return R"({"Optimized Prompt Template": )" + quoted("OPT " + line_after(p, "Agent Role: ")) + "}";
    if (starts("You are the Final Prompt Generator Agent for subtask"))
      return R"({"Final Prompt": )" + quoted("You are the " + line_after(p, "Agent Role: ") + ". " + kFiller) + "}";
    if (starts("You are the Prompt Template Agent")) return R"({"Generated Prompt Template": "TEMPLATE"})";
    if (starts("You are the Prompt Optimizer Agent")) return R"({"Optimized Prompt Template": "OPTIMIZED"})";
    if (starts("You are the Final Prompt Generator Agent"))
      return R"({"Final Prompt": "Compare the three options under one budget and recommend one."})";
    if (starts("You are the Task Decomposition Agent")) {
      const int done = count_of(p, "[subtask ");
      return done < subtasks_ ? R"({"next subtask": "step )" + std::to_string(done + 1) + "\"}"
                              : std::string(R"({"next subtask": "stop"})");
    }
    if (starts("You are the Agent Generation Expert")) {
      std::string roles = "[";
      for (int r = 0; r < roles_; ++r) roles += (r ? ", \"Role " : "\"Role ") + std::to_string(r + 1) + "\"";
      return R"({"agent roles": )" + roles + "]}";
    }
    if (starts("You are the Judge Agent")) return R"({"status": "continue"})";
    if (starts("You are the Score Agent"))
      return R"({"score": 0.)" + std::to_string(std::hash<std::string>{}(p) % 10) + "}";
    // A role agent's answer: its subtask, a number from its context, and a
    // paragraph, so that path contexts grow as they would.
    return "For " + line_after(p, "Current Subtask:\n") + ": option " +
           std::to_string(std::hash<std::string>{}(p) % 3 + 1) + ". " + kFiller;
  }

  static const std::string& last_user(const std::vector<llm::ChatMessage>& messages) {
    static const std::string kNone;
    for (auto it = messages.rbegin(); it != messages.rend(); ++it)
      if (it->role == llm::Role::user) return it->content;
    return kNone;
  }

 private:
  static constexpr const char* kFiller =
      "The first option costs least but misses the second requirement; the second meets every requirement "
      "within the budget; the third exceeds the budget by a fifth. The second is the one to take.";

  static std::string quoted(const std::string& s) { return json(s).dump(); }

  static std::string line_after(const std::string& text, const std::string& label) {
    const size_t at = text.find(label);
    if (at == std::string::npos) return "";
    const size_t from = at + label.size();
    return text.substr(from, text.find('\n', from) - from);
  }

  static int count_of(const std::string& text, const std::string& part) {
    int n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
    return n;
  }

  int subtasks_;
  int roles_;
};

// The model behind kaisha's runtime: answers at once, on the caller's
// thread, and counts the solve requests (node evaluations) it answered.
class InstantHaloBackend : public company::ChatClient {
 public:
  explicit InstantHaloBackend(InstantHaloModel model) : model_(model) {}
  Status check_model(const std::string&) const override { return Status::Ok(); }
  void chat(const std::string&, llm::ChatRequest req, company::ChatHandlers h) override {
    llm::ChatResponse r;
    r.model = "stub";
    r.message.role = llm::Role::assistant;
    r.message.content = model_.reply(req.messages);
    r.usage.input_tokens = 12;
    r.usage.output_tokens = 3;
    r.finish_reason = "stop";
    if (InstantHaloModel::is_solve(req.messages)) ++solves_;
    ++calls_;
    h.on_done(std::move(r));
  }
  uint64_t solves() const { return solves_.load(); }
  uint64_t calls() const { return calls_.load(); }

 private:
  InstantHaloModel model_;
  std::atomic<uint64_t> solves_{0};
  std::atomic<uint64_t> calls_{0};
};

}  // namespace kaisha::bench
