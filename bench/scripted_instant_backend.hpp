// The zero-latency model of the runtime benchmarks: it answers at once, on
// the caller's thread, by the conversation's shape. A HASHIRU CEO asks the
// employee "bench" (AskAgent) until it has made `calls` calls in the task,
// then answers; a pyramid lead calls echo_agent as a tool as often; the
// callees (the employee, the echo agent) answer at once. With it, the
// company's config for such a run and the hire of its employee.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "actors/company/company_runtime.hpp"
#include "runtime/company/chat_client.hpp"
#include "runtime/config/config.hpp"

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
  // `employee_tool_calls` > 0: the employee, offered tools, calls
  // Calculator that many times in an ask before it answers (its tool loop).
  explicit ScriptedInstantBackend(size_t calls, size_t employee_tool_calls = 0)
      : calls_(calls), employee_tool_calls_(employee_tool_calls) {}
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
    if (employee && !req.tools.empty() && made < employee_tool_calls_) {
      r.message.tool_calls.push_back({id, "Calculator", R"({"expression":"2+3"})"});
    } else if (employee) {
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
  size_t employee_tool_calls_;
  std::atomic<uint64_t> callee_calls_{0};
  std::atomic<uint64_t> ids_{0};
};

// A company in `dir` whose every model is the scripted one, priced as a
// local model (resource points only) under a budget that never refuses, and
// whose CEO has a turn per call and one to answer.
inline config::Config instant_company_config(const std::filesystem::path& dir, size_t calls) {
  std::ofstream(dir / "cost_table.yaml") << "models:\n"
                                            "  bench-local:\n"
                                            "    model_ref: stub:bench-local\n"
                                            "    type: local\n"
                                            "    create_resource_cost: 1\n"
                                            "    invoke_resource_cost: 1\n";
  config::Config c;
  c.store_path = (dir / "kaisha.db").string();
  c.cost_table_file = (dir / "cost_table.yaml").string();
  c.ceo.model = "stub:bench-local";
  c.ceo.max_turns = static_cast<int>(calls) + 1;  // one turn per call and the answer
  c.budget.resource_total = 1e12;
  c.tools.workspace_root = (dir / "work").string();
  return c;
}

// Hires the employee "bench" the CEO asks; exits the program if it cannot.
inline void hire_bench_employee(actors::CompanyRuntime& rt) {
  json hired = rt.call_tool("AgentCreator", {{"agent_name", "bench"},
                                             {"base_model", "bench-local"},
                                             {"system_prompt", kEmployeePrompt},
                                             {"description", "benchmark employee"}});
  if (hired.value("status", "") != "success") {
    std::fprintf(stderr, "AgentCreator: %s\n", hired.dump().c_str());
    std::exit(1);
  }
}

}  // namespace kaisha::bench
