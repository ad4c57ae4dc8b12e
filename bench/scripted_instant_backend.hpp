// The zero-latency model of the runtime benchmarks: it answers at once, on
// the caller's thread, by the conversation's shape. A HASHIRU CEO asks the
// employee "bench" (AskAgent) until it has made `calls` calls in the task,
// then answers; a pyramid lead calls echo_agent as a tool as often; the
// callees (the employee, the echo agent) answer at once.
#pragma once

#include <atomic>
#include <string>

#include "runtime/company/chat_client.hpp"

namespace kaisha::bench {

inline const char* kEmployeePrompt = "You answer in one word.";
inline const char* kLeadPhrase = "You lead the benchmark";

// Tool results since the last user message: how many calls this turn's
// caller has made in the running task.
inline size_t calls_so_far(const llm::ChatRequest& req) {
  size_t n = 0;
  for (auto it = req.messages.rbegin(); it != req.messages.rend() && it->role != llm::Role::user; ++it)
    n += it->role == llm::Role::tool;
  return n;
}

// Answers at once, on the caller's thread: the CEO and the lead ask for
// another call until they have made `calls`, the callees answer.
class ScriptedInstantBackend : public company::ChatClient {
 public:
  explicit ScriptedInstantBackend(size_t calls) : calls_(calls) {}
  Status check_model(const std::string&) const override { return Status::Ok(); }
  void chat(const std::string&, llm::ChatRequest req, company::ChatHandlers h) override {
    llm::ChatResponse r;
    r.model = "stub";
    r.message.role = llm::Role::assistant;
    r.usage.input_tokens = 12;
    r.usage.output_tokens = 3;
    r.finish_reason = "stop";
    const std::string& system = req.messages.empty() ? std::string() : req.messages.front().content;
    const bool employee = system == kEmployeePrompt;
    const bool lead = system.find(kLeadPhrase) != std::string::npos;
    const bool pyramid = lead || system.find("You answer the benchmark") != std::string::npos;
    const size_t made = calls_so_far(req);
    const std::string id = "c" + std::to_string(++ids_);
    if (employee || (pyramid && !lead)) ++callee_calls_;
    if (employee) {
      r.message.content = "pong";
    } else if (!pyramid) {  // the CEO
      if (made < calls_)
        r.message.tool_calls.push_back({id, "AskAgent", R"({"agent_name":"bench","prompt":"ping"})"});
      else
        r.message.content = "done";
    } else if (lead && made < calls_) {
      r.message.tool_calls.push_back({id, "echo_agent", R"({"task_input":"ping"})"});
    } else {
      r.message.tool_calls.push_back({id, "final_output", R"({"status":"success","output":"pong"})"});
    }
    if (!r.message.tool_calls.empty()) r.finish_reason = "tool_calls";
    h.on_done(std::move(r));
  }
  // The calls the callees (the employee, the echo agent) answered.
  uint64_t callee_calls() const { return callee_calls_.load(); }

 private:
  size_t calls_;
  std::atomic<uint64_t> callee_calls_{0};
  std::atomic<uint64_t> ids_{0};
};

}  // namespace kaisha::bench
