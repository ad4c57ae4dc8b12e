#include "cli/terminal_questions.hpp"

#include <iostream>
#include <thread>

#include "runtime/core/clock.hpp"

namespace kaisha::cli {
namespace {

constexpr const char* kDeclined = "you declined to answer the company's question";

}  // namespace

TerminalQuestions::TerminalQuestions(StdinLines& in, std::shared_ptr<company::ProgressSink> events)
    : in_(in), events_(std::move(events)) {}

Result<std::unique_ptr<TerminalQuestions>> TerminalQuestions::create(StdinLines& in,
                                                                     std::shared_ptr<company::ProgressSink> events) {
  auto self = std::make_unique<TerminalQuestions>(in, std::move(events));
  TerminalQuestions* raw = self.get();
  // No time limit: the user is at the terminal (or the input has ended,
  // which declines at once). The hook only hands the question over.
  auto q = company::UserQuestions::create(
      std::chrono::milliseconds(0),
      {[raw](const std::string& id, const std::string& question) { raw->on_asked(id, question); }, nullptr,
       // RequestBudgetIncrease: a raise the user authorised, on the task's runtime.
       [raw](const std::string& which, double amount) -> Status {
         actors::CompanyRuntime* rt = raw->runtime_.load();
         if (!rt) return Error{"budget", "no company is running"};
         return rt->raise_budget(which, amount);
       }});
  if (!q.ok()) return q.error();
  self->questions_ = std::move(q).value();
  return self;
}

void TerminalQuestions::on_asked(const std::string& task_id, const std::string& question) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    asked_ = Asked{task_id, question};
  }
  changed_.notify_all();
}

msg::TaskResult TerminalQuestions::run_task(actors::CompanyRuntime& rt, const std::string& input) {
  runtime_.store(&rt);
  {
    std::lock_guard<std::mutex> lock(mu_);
    asked_.reset();
    result_.reset();
  }
  std::thread worker([&] {
    msg::TaskResult r = rt.run_task(input);
    {
      std::lock_guard<std::mutex> lock(mu_);
      result_ = std::move(r);
    }
    changed_.notify_all();
  });
  for (;;) {
    Asked asked;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return result_.has_value() || asked_.has_value(); });
      if (result_) break;
      asked = std::move(*asked_);
      asked_.reset();
    }
    ask(rt, asked);
  }
  worker.join();
  // A question the task left waiting (it ended another way) is dropped.
  questions_->withdraw(result_->task_id, "the task has ended");
  return *result_;
}

void TerminalQuestions::ask(actors::CompanyRuntime& rt, const Asked& asked) {
  if (events_) {
    msg::ProgressEvent e;
    e.session_id = rt.session_id();
    e.task_id = asked.task_id;
    e.agent = "CEO";
    e.kind = msg::EventKind::input_required;
    e.text = asked.question;
    e.at_ms = wall_ms();
    events_->emit(e);
  }
  std::cerr << "» the company asks you: " << asked.question << "\n"
            << "  (answer on one line; an empty line or Ctrl-C declines)\n";
  for (;;) {
    {
      // Before the prompt shows: a Ctrl-C typed as soon as it does declines
      // the question (decline_waiting), instead of interrupting kaisha.
      std::lock_guard<std::mutex> lock(mu_);
      reading_answer_ = true;
    }
    std::cerr << "answer> " << std::flush;
    StdinLines::Read r = in_.next();
    {
      std::lock_guard<std::mutex> lock(mu_);
      reading_answer_ = false;
    }
    in_.clear_interrupt();  // a Ctrl-C that came with the answer line is spent
    if (r.got == StdinLines::Got::too_long) {
      std::cerr << "kaisha: that answer (line " << in_.line_number() << " of the input) is longer than "
                << StdinLines::kMaxLineBytes << " bytes; type a shorter one, or an empty line to decline\n";
      continue;
    }
    if (r.got == StdinLines::Got::line && r.text.find_first_not_of(" \t") != std::string::npos) {
      if (const std::string bad = in_.utf8_problem(r.text); !bad.empty()) {
        std::cerr << "kaisha: that answer was not taken: " << bad << "; type it again, or an empty line to decline\n";
        continue;
      }
      questions_->answer(asked.task_id, r.text);
      return;
    }
    if (r.got == StdinLines::Got::interrupted || r.got == StdinLines::Got::end) std::cerr << "\n";
    rt.cancel(asked.task_id, kDeclined);
    questions_->withdraw(asked.task_id, kDeclined);
    return;
  }
}

bool TerminalQuestions::decline_waiting() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reading_answer_) return false;
  in_.interrupt();
  return true;
}

}  // namespace kaisha::cli
