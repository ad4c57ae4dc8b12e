// TerminalQuestions is the AskUser tool (and RequestBudgetIncrease, whose
// yes raises the running company's budget) of `kaisha chat` and `kaisha run`:
// the CEO of a task asks its user, the question is printed, and the next
// line the user types is the answer; the same task goes on with it. An empty
// line, the end of the input or Ctrl-C declines: the task ends as canceled
// saying so, and the command goes on (chat reads its next turn).
//
// The task runs on a thread of its own while the CLI's thread waits for its
// questions and reads the answers from StdinLines, so no actor thread ever
// waits for the terminal. A question waits as long as its user takes.
// An answer that is not UTF-8 (or longer than StdinLines::kMaxLineBytes) is
// refused with the reason and the question stays open.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "actors/company/company_runtime.hpp"
#include "cli/stdin_lines.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/company/user_questions.hpp"

namespace kaisha::cli {

class TerminalQuestions {
 public:
  // `events`, when set, also gets each question as an "input_required"
  // progress event (--json: its line on stdout).
  static Result<std::unique_ptr<TerminalQuestions>> create(StdinLines& in,
                                                           std::shared_ptr<company::ProgressSink> events);

  // The AskUser tool, for RuntimeOptions::tool_sources.
  std::shared_ptr<company::ToolSource> tool() const { return questions_; }

  // Runs `input` as a task of `rt` to its end, answering its questions.
  msg::TaskResult run_task(actors::CompanyRuntime& rt, const std::string& input);

  // Declines the question waiting for its user, if one is (true); for
  // InterruptGuard::on_interrupt. Thread-safe.
  bool decline_waiting();

  TerminalQuestions(StdinLines& in, std::shared_ptr<company::ProgressSink> events);

 private:
  struct Asked {
    std::string task_id, question;
  };
  void on_asked(const std::string& task_id, const std::string& question);
  // Prints the question and gives it the user's answer, or declines it.
  void ask(actors::CompanyRuntime& rt, const Asked& asked);

  StdinLines& in_;
  const std::shared_ptr<company::ProgressSink> events_;
  std::shared_ptr<company::UserQuestions> questions_;
  std::atomic<actors::CompanyRuntime*> runtime_{nullptr};  // of the task running now, for a budget raise
  std::mutex mu_;
  std::condition_variable changed_;
  std::optional<Asked> asked_;             // asked, not yet shown to the user
  std::optional<msg::TaskResult> result_;  // the running task's end
  bool reading_answer_ = false;            // the CLI's thread waits for an answer line
};

}  // namespace kaisha::cli
