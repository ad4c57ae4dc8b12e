// kaisha feedback TASK --wrong "why": marks a task's answer wrong (HASHIRU
// Case Study 4). The verdict is journaled on the task, then the CEO of the
// task's session is given the task, its answer and the reason
// (memory::ErrorReflection, shared with the judge's final rejections) and
// writes a critique with actionable guidance into memory through its own
// model (MemoryManager, key ErrorAnalysis_<Topic>), where a similar later
// question retrieves it.
#include <iostream>
#include <memory>

#include "actors/strategy_kit/strategy_registration.hpp"
#include "actors/company/company_runtime.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/progress_printer.hpp"
#include "protocols/mcp/client/mcp_servers_start.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/messages/task_result_json.hpp"
#include "runtime/memory/error_reflection.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {
namespace {

struct FeedbackOptions {
  CommonOptions common;
  std::string task;
  std::string wrong;
};

// Journals the verdict and returns the task row. The journal is opened,
// written and closed before the company starts (one writer at a time).
Result<store::TaskRow> record_verdict(const config::Config& c, const FeedbackOptions& o) {
  auto st = open_to_write(c);
  if (!st.ok()) return st.error();
  auto task = (*st)->get_task(o.task);
  if (!task.ok()) return task.error();
  if (!task->has_value())
    return Error{"usage", "no task '" + o.task + "' in " + c.store_path + " (see kaisha history)"};
  store::StepRow step;
  step.session_id = (*task)->session_id;
  step.task_id = (*task)->id;
  step.agent = "user";
  step.kind = "note";
  step.payload = memory::ErrorReflection::verdict_note(o.wrong, "user");
  if (auto r = (*st)->append_step(step); !r.ok()) return r.error();
  return **task;
}

int feedback(const FeedbackOptions& o) {
  if (o.wrong.empty()) {
    std::cerr << "kaisha feedback: --wrong needs a reason (what was wrong with the answer)\n";
    return 2;
  }
  auto c = load_cli_config(o.common, /*needs_model=*/true);
  if (!c.ok()) {
    std::cerr << "kaisha feedback: " << c.error().message << "\n";
    return 2;
  }
  auto task = record_verdict(*c, o);
  if (!task.ok()) {
    std::cerr << "kaisha feedback: " << task.error().message << "\n";
    return 2;
  }
  auto prompt = memory::ErrorReflection::load();
  if (!prompt.ok()) {
    std::cerr << "kaisha feedback: " << prompt.error().message << "\n";
    return 2;
  }
  const std::string answer = task->final_answer.empty() ? "(no answer: " + task->error + ")" : task->final_answer;
  const std::string reflection = prompt->prompt(task->input, answer, o.wrong);

  auto printer = std::make_shared<ProgressPrinter>(o.common.json, o.common.quiet);
  actors::RuntimeOptions ro;
  ro.config = *c;
  ro.progress = printer;
  ro.session_id = task->session_id;
  ro.strategy = actors::ceo_strategy();  // the CEO writes the critique
  ro.tool_sources = mcp::start_mcp_servers(c->mcp_servers);
  auto rt = actors::CompanyRuntime::start(std::move(ro));
  if (!rt.ok()) {
    std::cerr << "kaisha feedback: " << rt.error().message << "\n";
    return 2;
  }
  msg::TaskResult r = (*rt)->run_task(reflection);
  if (o.common.json) {
    json line = r;
    line["event"] = "result";
    line["session"] = (*rt)->session_id();
    line["feedback_on"] = task->id;
    std::cout << dump_text(line) << std::endl;
  } else if (r.ok) {
    std::cout << r.answer << std::endl;
  } else {
    std::cerr << "kaisha feedback: the CEO could not reflect on the error: " << r.error << "\n";
  }
  return r.ok ? 0 : 1;
}

CommandSetup setup = [](CLI::App* cmd) -> std::function<int()> {
  auto o = std::make_shared<FeedbackOptions>();
  cmd->add_option("task", o->task, "the task id (see kaisha history)")->required();
  cmd->add_option("--wrong", o->wrong, "the answer was wrong: why")->required();
  cmd->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
  cmd->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
  cmd->add_option("--model", o->common.model, "CEO model ref");
  cmd->add_flag("--json", o->common.json, "machine-readable output (JSON lines)");
  cmd->add_flag("-q,--quiet", o->common.quiet, "no progress on stderr");
  return [o] { return feedback(*o); };
};

const bool feedback_command_registered = register_command(
    "feedback", "mark a task's answer wrong: journal it and have the CEO store a critique in memory", setup);

}  // namespace
}  // namespace kaisha::cli
