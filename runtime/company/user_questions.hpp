// UserQuestions is the AskUser tool: the CEO asks the user of its task a
// question and the task waits — holding no thread, its model call settled,
// its employees still hired — until answer() brings the user's reply, the
// question is withdrawn (the task was canceled) or its time runs out (if it
// has one: a zero timeout lets it wait as long as its user takes).
//
// With a `raise` hook it also offers RequestBudgetIncrease: the same pause
// with a yes/no question to authorise raising the expense or resource
// budget; the budget is raised (through the hook) only when the answer is
// one of the yes words of data/tools/budget_request.json.
//
// One question per task at a time; a second AskUser while one waits is an
// error result. When a question's time runs out, `timed_out` is told first,
// so that its owner can end the task as failed, and then the question gets an
// error result saying so.
//
// Thread-safe. The hooks are called without the object's lock held, from
// the caller's thread (asked) or the timer's (timed_out); they must not
// block for long.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "runtime/company/tool_source.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::company {

class UserQuestions : public ToolSource {
 public:
  struct Hooks {
    std::function<void(const std::string& task_id, const std::string& question)> asked;
    std::function<void(const std::string& task_id)> timed_out;
    // Raises budget `which` ("expense" or "resource") by `amount`; null: no
    // RequestBudgetIncrease tool. Called from the answering thread.
    std::function<Status(const std::string& which, double amount)> raise;
  };

  // The tools' specs and texts come from data/tools/ask_user_tool.json,
  // budget_request_tool.json and budget_request.json.
  static Result<std::shared_ptr<UserQuestions>> create(std::chrono::milliseconds timeout, Hooks hooks);
  ~UserQuestions() override;

  std::string origin() const override { return "ask_user"; }
  std::vector<llm::ToolSpec> specs() const override { return specs_; }
  void call(const std::string& name, const json& args, const ToolCallContext& ctx,
            std::function<void(ToolResult)> done) override;
  // Asking again changes nothing in the world: a question pending when its
  // process died is asked again when its task resumes.
  bool repeatable(const std::string&) const override { return true; }
  // Withdraws every waiting question and stops the timer: no hook is called
  // once it returns. Not from a hook.
  void stop() override;

  // Gives the waiting question of `task_id` its answer; false when it has none.
  bool answer(const std::string& task_id, const std::string& text);
  // Ends the waiting question of `task_id`, if any, with an error result `why`.
  void withdraw(const std::string& task_id, const std::string& why);
  // The waiting question of `task_id`.
  std::optional<std::string> question(const std::string& task_id) const;

  UserQuestions(std::vector<llm::ToolSpec> specs, json budget_texts, std::chrono::milliseconds timeout, Hooks hooks);

  // Whether `answer` authorises a raise: one of `yes_words` once trimmed,
  // ASCII letters lower-cased and final punctuation dropped.
  static bool authorises(const std::string& answer, const json& yes_words);

 private:
  struct Pending {
    std::string question;
    std::function<void(ToolResult)> done;
    int64_t deadline_ms = 0;  // steady clock; 0: none
  };
  void run_timer();
  // Holds `question` for `task_id` until its answer, and tells the `asked`
  // hook; `done` gets an error at once when the company stops or the task
  // already waits for an answer.
  void ask(const std::string& tool, const std::string& task_id, const std::string& question,
           std::function<void(ToolResult)> done);
  void request_budget(const json& args, const ToolCallContext& ctx, std::function<void(ToolResult)> done);
  // The waiting question's callback, removed; null when none waits.
  std::function<void(ToolResult)> take(const std::string& task_id);

  const std::vector<llm::ToolSpec> specs_;
  const json budget_texts_;
  const std::chrono::milliseconds timeout_;
  const Hooks hooks_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Pending> pending_;  // by task id
  bool stopping_ = false;
  std::mutex join_mu_;  // stop() may be called from two threads (its owner's, the runtime's)
  std::thread timer_;
};

}  // namespace kaisha::company
