// HASHIRU's CEO (hashiru.md §2.1, §9 A–B) as a pure driver
// (runtime/driver/driver_effects.hpp): no actor, no clock, no I/O of its own.
//
// A task is the next user message of the CEO's conversation, which carries
// over from task to task (one driver per session, one task at a time). The
// CEO's model is called in a loop: its tool calls run as ReplyCallOrder says
// (company/reply_call_order.hpp) and their results go back in call order;
// its answer without tool calls is the task's answer, audited by the judge
// when it audits (a rejection goes back as a user message, up to
// max_judge_retries; a final rejection may first have the CEO write a
// critique memory). The HASHIRU six are the driver's own tools: their checks
// and texts are here, their hires, asks, fires and budget reads are effects;
// every other tool is a RunTool, tried again after a transient failure
// when the tool is safe to repeat (a retry is a RunTool with a delay, so a
// resumed task runs only what it had not). Memories are recalled before the
// first turn, and a long conversation is summarised before a model call.
//
// Every journal step, progress event and final text is the CEO's as it was
// before the driver (the e2e tests hold them).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/company/agent_roster.hpp"
#include "runtime/company/conversation.hpp"
#include "runtime/company/tool_retry.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/economy/cost_table.hpp"
#include "runtime/memory/conversation_summarizer.hpp"
#include "runtime/memory/error_reflection.hpp"
#include "runtime/judge/audit_loop.hpp"

namespace kaisha::hashiru {

// What the CEO is given once, for its whole session.
struct HashiruSetup {
  std::string system_prompt;
  company::ConversationLimits limits;                    // ceo.max_turns, ceo.max_malformed_tool_calls
  std::string model_ref;                                 // the CEO's model (ceo.model), as journaled
  double temperature = 0.2;                              // ceo.temperature
  bool stream = false;                                   // ceo.stream
  std::vector<llm::ToolSpec> tool_specs;                 // the CEO's tools; the HASHIRU six among them are the driver's
  std::shared_ptr<const economy::CostTable> cost_table;  // read at each use: it may change
  config::Switches switches;                             // at the start; set_switch() changes them
  config::EmployeeGrants grants;                         // employee.tools
  bool cluster = false;                                  // employees may be placed on other nodes
  bool audit = false;                                    // the judge audits every final answer
  int max_judge_retries = 3;
  bool recall = false;  // memories are retrieved before each task (memory switch on)
  std::shared_ptr<const memory::ErrorReflection> error_reflection;   // null: no critique after a rejection
  std::shared_ptr<const memory::ConversationSummarizer> summarizer;  // null: no short-term memory
  // Tool calls that fail transiently are tried again (tools.failures), as in
  // an employee's tool loop: only tools `repeatable` says are safe to run
  // twice (null: none), each retry a RunTool with the policy's delay; the
  // jitter is drawn from the task's id (`task_id`), the call's id and the attempt.
  company::ToolRetryPolicy tool_retry;
  std::function<bool(const std::string& tool)> repeatable;
  std::function<std::string()> task_id;

  // What the driver asks the world (each called on the caller's thread, while
  // the driver works):
  // whether a new hire's model can be used (the backend knows it);
  std::function<Status(const std::string& model_ref)> check_model;
  // the tools beyond the HASHIRU six the model may call now (providers synced);
  std::function<std::vector<llm::ToolSpec>()> other_tools;
  // the agents hired or being hired, and whether one is hired and running;
  std::function<const company::AgentRoster&()> roster;
  std::function<bool(const std::string& agent)> hired;
  // whether anybody watches progress: chatty events are built only then.
  std::function<bool()> listening;
};

class HashiruDriver {
 public:
  explicit HashiruDriver(HashiruSetup setup);
  HashiruDriver(const HashiruDriver&) = delete;  // the tool handlers hold `this`
  HashiruDriver& operator=(const HashiruDriver&) = delete;

  // Starts a task with the user's message `input`: memories are recalled
  // first (when recall is on), then the model is called.
  driver::Effects start(const std::string& input);
  // Feeds the outcome of an effect this driver returned. Outcomes of effects
  // of a task that has ended are ignored; a direct call's are not.
  driver::Effects on(const driver::Outcome& o);
  // The running task was canceled: it finishes with `why`.
  driver::Effects cancel(const std::string& why);
  // Calls CEO tool `tool` with its JSON `arguments` text outside the model's
  // loop (protocol adapters, benchmarks, ops), with the same checks as a
  // model's call; answered by Reply{request} with the ToolResult's JSON.
  driver::Effects call_directly(uint64_t request, const std::string& tool, const std::string& arguments);

  // Whether `tool` is one of the HASHIRU six (no provider may replace it).
  bool owns(const std::string& tool) const { return own_tools_.find(tool) != nullptr; }
  // Toggles a §9 item 54 switch; false for an unknown name.
  bool set_switch(const std::string& name, bool on);
  const config::Switches& switches() const { return switches_; }
  bool running() const { return running_; }
  const company::Conversation& conversation() const { return conversation_; }

 private:
  // The tool calls of one model answer.
  struct ReplyRun;
  // A new effect id whose outcome, of type T, goes to `then` (in scope_).
  template <class T>
  driver::CallId expect(std::function<void(const T&)> then);
  driver::Effects take() { return std::exchange(out_, {}); }
  bool listening() const { return setup_.listening && setup_.listening(); }
  void step(msg::EventKind kind, json payload, int64_t in = 0, int64_t out = 0, double usd = 0, std::string agent = "");
  driver::Report& report(msg::EventKind kind, std::string text, json data = json::object(), std::string agent = "");
  void finish(bool ok, const std::string& text);
  void drop_task_effects();

  void recalled(const json& r);
  void turn();
  bool summarize_first();
  void summarized(const memory::ConversationSummaryPlan& plan, const driver::ModelAnswered& a);
  void answered(const driver::ModelAnswered& a);
  void on_response(const llm::ChatResponse& response);
  void on_audit_step(Result<planning::AuditStep> step);
  bool reflect_on_rejection(const planning::AuditReport& report);

  void run_tools(std::vector<llm::ToolCall> calls);
  void start_call(const std::shared_ptr<ReplyRun>& reply, size_t i);
  void call_done(const std::shared_ptr<ReplyRun>& reply, size_t i, const company::ToolResult& r);
  // `call_id`: the model's call it answers ("" for a direct call).
  void invoke(const std::string& tool, const std::string& arguments, company::ToolDone done,
              const std::string& call_id = "");
  struct ToolAttempt;
  void run_attempt(const std::shared_ptr<ToolAttempt>& a, int64_t delay_ms);
  // The wait before `a` is tried again after `r`; nullopt: it is not.
  std::optional<int64_t> retry_delay(const ToolAttempt& a, const company::ToolResult& r) const;

  // The HASHIRU six.
  void register_own_tools();
  std::string switch_refusal(const msg::AgentSpec& spec) const;
  void agent_creator(const json& args, company::ToolDone done);
  void ask_agent(const json& args, company::ToolDone done);
  void fire_agent(const json& args, company::ToolDone done);
  void get_agents(company::ToolDone done);
  void cost_manager(company::ToolDone done);
  void get_budget(company::ToolDone done);

  HashiruSetup setup_;
  config::Switches switches_;
  company::Conversation conversation_;
  company::ToolRegistry own_tools_;  // the HASHIRU six

  // The running task.
  bool running_ = false;
  uint64_t task_ = 0;  // serial of the running (or last) task
  std::string input_;
  std::unique_ptr<planning::AuditLoop> audit_;  // when the judge audits
  // The judge's final rejection while the CEO writes its critique memory:
  // the task then ends with this text whatever the reflection turn does.
  std::string rejected_;
  // The next model call goes out without another summary check (one was just made).
  bool summary_checked_ = false;

  driver::Effects out_;
  uint64_t scope_ = 0;              // whose effects are being made: a task's serial, or 0 for a direct call
  driver::PendingCalls<> pending_;  // effects in flight, scoped by task serial
};

}  // namespace kaisha::hashiru
