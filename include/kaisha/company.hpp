// kaisha/company.hpp: start a company of LLM agents in this process, give it
// tasks, cancel them and read their results.
//
// A Company is one session of one company: a CEO that hires, asks and fires
// employees under a budget, run by the strategy its configuration names,
// with its journal in the SQLite file the configuration's `store` names.
// Everything a task does is journaled before it is acknowledged, so a
// session can be continued (`session_id`) or its interrupted tasks resumed
// by another process (`resume`).
//
// Threading: run() blocks the calling thread until the task ends; several
// threads may each run a task of their own. cancel(), budget() and the
// accessors may be called from any thread. Events, tools and model backends
// are called on the company's own threads (see their headers).
// Ownership: start() returns the only owner; destroying the Company stops
// its tools and threads and commits the journal. Objects passed in options
// are shared and kept until then.
// Errors: start() returns an Error (code and message naming the file, line
// and key, or the model, that was wrong) and starts nothing. A task's
// failure is its TaskResult (ok false, error saying why), never an
// exception.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kaisha/events.hpp"
#include "kaisha/model.hpp"
#include "kaisha/tools.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha {

namespace actors {
class CompanyRuntime;
}

// A task's end: ok and answer, or error (and canceled when stopped on
// request); the tokens and dollars it used; strategy-specific metadata.
using TaskResult = msg::TaskResult;

struct CompanyOptions {
  // The configuration (docs/configuration.md): a YAML file, or YAML text
  // (config_text wins when both are set; relative paths in it resolve
  // against the current directory). Neither: the defaults.
  std::string config_file;
  std::string config_text;
  // Continue this session ("" = start a new one); with resume, finish the
  // tasks its last process left unfinished (resume_interrupted()).
  std::string session_id;
  bool resume = false;
  // A strategy's name (catalog, kaisha/strategy.hpp); "" = the config's.
  std::string strategy;
  // How models are reached; null = the providers of the configuration.
  std::shared_ptr<ModelBackend> models;
  // Who hears the company's live events; null = nobody.
  std::shared_ptr<EventSink> events;
  // Tools offered to the CEO and employees besides the company's own.
  std::vector<std::shared_ptr<ToolSource>> tools;
  // Where kaisha's prompts/ and data/ are, for the whole process; "" =
  // found as docs/library.md, "Data files", says. $KAISHA_DATA_DIR wins.
  std::string data_dir;
  int threads = 0;  // scheduler threads; 0 = the number of cores
};

class Company {
 public:
  // Validates the configuration, the cost table, the prompts, the CEO's
  // model and the store before any work; opens or continues the session.
  static Result<std::unique_ptr<Company>> start(CompanyOptions options);
  ~Company();
  Company(const Company&) = delete;
  Company& operator=(const Company&) = delete;

  const std::string& session_id() const;
  const std::string& strategy() const;  // the strategy its tasks run with

  // Runs one task to its end and returns its result; every row the task
  // wrote is committed first. With `task_id` (unique in the store), the
  // caller names the task, so that another thread can cancel() it.
  TaskResult run(const std::string& input);
  TaskResult run(const std::string& input, const std::string& task_id);

  // With CompanyOptions::resume: runs the session's interrupted tasks to
  // their end, replaying from the journal what they had done (nothing is
  // paid twice). An error when a task's journal cannot be read.
  Result<std::vector<TaskResult>> resume_interrupted();

  // Stops task `task_id`: its run() returns at once, canceled with error
  // `why`, and the journal records it so. False when it is not running.
  bool cancel(const std::string& task_id, const std::string& why);

  // The budgets and what was spent ({"expense": {...}, "resource": {...}}).
  json budget();

 private:
  explicit Company(std::unique_ptr<actors::CompanyRuntime> runtime);
  std::unique_ptr<actors::CompanyRuntime> runtime_;
};

}  // namespace kaisha
