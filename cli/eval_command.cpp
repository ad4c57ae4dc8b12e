// kaisha eval --suite FILE.jsonl --strategy S [--name RUN]: runs every item
// of a suite (docs/suites.md) as a task of a company on strategy S, scores
// each answer by the item's format, and prints accuracy with its Wilson
// interval, tokens, dollars and time (docs/eval.md). Every scored answer is
// kept in the journal (strategy state "eval", key run/RUN/item/ID/N) before
// the next item starts, so `kaisha eval --resume RUN` after a crash or
// Ctrl-C goes on where it stopped: scored items are not asked again, an
// interrupted task is finished from the journal, a finished but unscored one
// is scored from its journaled answer.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "actors/company/company_runtime.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/interrupt_guard.hpp"
#include "cli/progress_printer.hpp"
#include "runtime/catalog/strategy_catalog.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/eval/eval_plot.hpp"
#include "runtime/eval/item_record.hpp"
#include "runtime/eval/item_score.hpp"
#include "runtime/eval/model_alone_driver.hpp"
#include "runtime/eval/run_comparison.hpp"
#include "runtime/eval/run_summary.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/suite/suite_file.hpp"
#include "runtime/suite/suite_sample.hpp"

namespace kaisha::cli {
namespace {

namespace fs = std::filesystem;

struct EvalOptions {
  CommonOptions common;
  std::string suite;
  int limit = 0;  // 0: every item (or the recorded limit on --resume)
  int runs = 0;   // 0: once (or the recorded count on --resume)
  std::string name;
  std::string resume;
  std::string csv;
  std::string plot;                 // also draw accuracy against cost as this PNG
  std::string baseline;             // another run of the same suite to compare with
  std::vector<std::string> ablate;  // switches to turn off, one run each ("all": every one)
  int timeout_s = 0;                // a task still running after this long is wrong (0: none)
  double max_usd = 0;               // stop before a task once the run has spent this much (0: no cap)
  std::optional<uint64_t> seed;     // with --limit: a seeded sample instead of the first items
  int concurrency = 1;              // tasks answered at once, each in a company of its own
};

int eval_fail(const std::string& why, int code = 2) {
  std::cerr << "kaisha eval: " << why << "\n";
  return code;
}

// What --resume RUN needs to go on: kept as the state "run/RUN" once the
// suite has been checked, before any item runs.
struct RunRecord {
  std::string suite;  // absolute path
  std::string strategy;
  std::string model;
  int limit = 0;
  int runs = 1;
  std::string baseline;             // the run it is compared with ("" = none)
  std::string baseline_model;       // --baseline MODEL: the model alone, run first as `baseline`
  std::vector<std::string> ablate;  // the switches its ablation runs turn off
  std::string switched_off;         // an ablation run: the switch it turns off
  int timeout_s = 0;                // per task; 0: none
  std::optional<uint64_t> seed;     // the sample's seed; none: the first `limit` items
};

json to_json(const RunRecord& r) {
  return json{{"suite", r.suite},
              {"strategy", r.strategy},
              {"model", r.model},
              {"limit", r.limit},
              {"runs", r.runs},
              {"baseline", r.baseline},
              {"baseline_model", r.baseline_model},
              {"ablate", r.ablate},
              {"switched_off", r.switched_off},
              {"timeout_s", r.timeout_s},
              {"seed", r.seed ? json(*r.seed) : json(nullptr)}};
}

RunRecord record_from_json(const json& j) {
  RunRecord r;
  r.suite = j.value("suite", "");
  r.strategy = j.value("strategy", "");
  r.model = j.value("model", "");
  r.limit = j.value("limit", 0);
  r.runs = j.value("runs", 1);
  r.baseline = j.value("baseline", "");
  r.baseline_model = j.value("baseline_model", "");
  r.ablate = j.value("ablate", std::vector<std::string>{});
  r.switched_off = j.value("switched_off", "");
  r.timeout_s = j.value("timeout_s", 0);
  if (j.contains("seed") && j["seed"].is_number_unsigned()) r.seed = j["seed"].get<uint64_t>();
  return r;
}

// One answer to score: an item, in one of the runs.
struct Slot {
  const suite::SuiteItem* item = nullptr;
  int repetition = 1;
};

// The task id of the `attempt`th task asked for a slot: a task that failed
// or was canceled is asked again under the next one.
std::string attempt_task_id(const std::string& run, const Slot& s, int attempt) {
  std::string id = eval::item_task_id(run, s.item->id, s.repetition);
  return attempt <= 1 ? id : id + "-attempt-" + std::to_string(attempt);
}

std::string percent(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << v * 100 << "%";
  return o.str();
}

std::string dollars(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(4) << v;
  return o.str();
}

std::string seconds(int64_t ms) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << ms / 1000.0 << " s";
  return o.str();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

json summary_json(const eval::RunSummary& s) {
  return json{{"items", s.items},
              {"judged", s.judged},
              {"correct", s.correct},
              {"accuracy", s.accuracy},
              {"wilson_low", s.interval.low},
              {"wilson_high", s.interval.high},
              {"tokens", s.tokens},
              {"usd", s.usd},
              {"ms", s.ms},
              {"cost_efficiency", s.cost_efficiency}};
}

void print_table_row(const std::string& label, const eval::RunSummary& s) {
  std::cout << std::left << std::setw(6) << label << std::setw(7) << s.items << std::setw(9) << s.correct
            << std::setw(10) << percent(s.accuracy) << std::setw(18)
            << ("[" + percent(s.interval.low) + ", " + percent(s.interval.high) + "]") << std::setw(9) << s.tokens
            << std::setw(10) << dollars(s.usd) << seconds(s.ms) << "\n";
}

// Cancels a task as failed once its time is up (--timeout), on a thread of
// its own and the monotonic clock, unless the task ends first.
class TaskTimer {
 public:
  TaskTimer(actors::CompanyRuntime* runtime, std::string task, int seconds) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, runtime, task = std::move(task), seconds] {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, std::chrono::seconds(seconds), [&] { return done_; })) return;
      fired_ = true;
      const std::string why = "no answer within " + std::to_string(seconds) + " s (--timeout)";
      // The task may be between its start and its first actor: try until it ends.
      while (!done_ && !runtime->cancel(task, why, /*failed=*/true))
        cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return done_; });
    });
  }
  ~TaskTimer() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  TaskTimer(const TaskTimer&) = delete;
  TaskTimer& operator=(const TaskTimer&) = delete;

  // Whether the time ran out (and the task was told to stop).
  bool fired() {
    std::lock_guard lock(mu_);
    return fired_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  bool fired_ = false;
  std::thread thread_;
};

// An ablation run's name: the run's, and the switch it turns off.
std::string arm_name(const std::string& run, const std::string& off) { return run + "-no-" + off; }

// The run of the model alone that --baseline MODEL compares a run with.
std::string alone_name(const std::string& run) { return run + "-alone"; }

// The papers' "model alone" baseline (runtime/eval/model_alone_driver.hpp),
// a strategy of this process only: one model call per task, no company.
void register_model_alone() {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = eval::kModelAloneStrategy;
    info.help = "the model alone: one call per task, no CEO, employees or tools (kaisha eval --baseline MODEL)";
    Status s = actors::register_strategy(std::move(info),
                                         [](const driver::StrategySetup& setup) -> Result<driver::DrivenStrategy> {
                                           driver::DrivenStrategy d;
                                           d.agent = eval::kModelAloneAgent;
                                           d.who = "the model alone";
                                           d.model = setup.price(setup.config->ceo.model);
                                           d.make = [](const msg::TaskRequest& task, const driver::StateValues&) {
                                             return driver::make_task_driver<eval::ModelAloneDriver>(task.input, "", 0);
                                           };
                                           return d;
                                         });
    if (!s.ok()) std::cerr << "kaisha eval: " << s.error().message << "\n";
  });
}

class EvalRun {
 public:
  explicit EvalRun(EvalOptions o) : o_(std::move(o)) {}
  // An ablation run of `parent`: its record with `off` turned off, compared
  // with the parent; started, or resumed when the journal has it.
  EvalRun(EvalOptions o, const RunRecord& parent, const std::string& parent_name, const std::string& off)
      : o_(std::move(o)), arm_(parent) {
    arm_->baseline = parent_name;
    arm_->baseline_model.clear();
    arm_->ablate.clear();
    arm_->switched_off = off;
    arm_name_ = arm_name(parent_name, off);
  }

  // The run of the model alone that `parent` is compared with
  // (--baseline MODEL): started, or resumed when the journal has it.
  EvalRun(EvalOptions o, const RunRecord& parent, const std::string& parent_name) : o_(std::move(o)), arm_(parent) {
    arm_->strategy = eval::kModelAloneStrategy;
    arm_->model = parent.baseline_model;
    arm_->baseline.clear();
    arm_->baseline_model.clear();
    arm_->ablate.clear();
    arm_->switched_off.clear();
    arm_name_ = alone_name(parent_name);
  }

  int run() {
    if (int code = prepare(); code != 0) return code;
    if (!record_.baseline_model.empty())
      if (int code = run_model_alone(); code != 0) return code;
    if (int code = answer_all(); code != 0 && code != 1) return code;
    int code = report();
    if (code == 0 && !record_.ablate.empty()) code = run_ablations();
    if (!o_.plot.empty() && !arm_ && (code == 0 || code == 1))
      if (Status s = plot(); !s.ok()) return eval_fail(s.error().message, 1);
    return code;
  }

  // After run(): the comparison with the baseline, when there is one.
  const std::optional<eval::RunComparison>& comparison() const { return comparison_; }
  const eval::RunSummary& summary() const { return summary_; }

 private:
  // --baseline MODEL: the suite answered by the model alone first, then
  // read as this run's baseline.
  int run_model_alone() {
    EvalOptions child = o_;
    child.resume.clear();
    child.baseline.clear();
    child.ablate.clear();
    child.csv.clear();
    child.plot.clear();
    child.common.model = record_.baseline_model;
    child.common.strategy = eval::kModelAloneStrategy;
    EvalRun alone(child, record_, name_);
    if (int code = alone.run(); code != 0) return code;
    alone_summary_ = alone.summary();
    auto st = store::JournalStore::open_read_only(config_.store_path);
    if (!st.ok()) return eval_fail(st.error().message, 1);
    auto rows = (*st)->state(eval::kEvalState);
    if (!rows.ok()) return eval_fail(rows.error().message, 1);
    for (auto& r : *rows) state_[r.key] = r.value;
    if (!o_.common.quiet && !o_.common.json) std::cout << "\n";
    return read_baseline();
  }

  // The strategy's switches that --ablate names ("all": every one), or an
  // error listing the ones it has.
  int check_ablate() {
    const strategy::StrategyInfo* info = strategy::find_strategy(record_.strategy);
    std::vector<std::string> names;
    for (const auto& w : info->switches) names.push_back(w.name);
    std::string listed;
    for (const auto& n : names) listed += (listed.empty() ? "" : ", ") + n;
    if (names.empty()) return eval_fail("--ablate: the strategy " + record_.strategy + " has no switches");
    std::vector<std::string> chosen;
    for (const std::string& a : record_.ablate) {
      if (a == "all") {
        chosen = names;
        break;
      }
      if (std::find(names.begin(), names.end(), a) == names.end())
        return eval_fail("--ablate: '" + a + "' is not a switch of " + record_.strategy + " (" + listed + ", or all)");
      if (std::find(chosen.begin(), chosen.end(), a) == chosen.end()) chosen.push_back(a);
    }
    record_.ablate = chosen;
    return 0;
  }

  // One run per switch in record_.ablate, each compared with this one, then
  // the table of them all.
  int run_ablations() {
    struct Arm {
      std::string off;
      eval::RunSummary summary;
      std::optional<eval::RunComparison> vs;
    };
    std::vector<Arm> arms;
    for (const std::string& off : record_.ablate) {
      EvalOptions child = o_;
      child.resume.clear();
      child.baseline.clear();
      child.ablate.clear();
      child.csv.clear();
      child.plot.clear();
      EvalRun arm(child, record_, name_, off);
      if (int code = arm.run(); code != 0) return code;
      arms.push_back({off, arm.summary(), arm.comparison()});
      ablation_summaries_.emplace_back(off, arm.summary());
    }
    if (o_.common.json) {
      json out = json::array();
      for (const Arm& a : arms) {
        json j{{"switch", a.off},
               {"run", arm_name(name_, a.off)},
               {"accuracy", a.summary.accuracy},
               {"tokens", a.summary.tokens},
               {"usd", a.summary.usd}};
        if (a.vs) {
          j["delta"] = a.vs->candidate.accuracy - a.vs->baseline.accuracy;
          j["mcnemar_exact_p"] = a.vs->test.exact_p;
        }
        out.push_back(j);
      }
      std::cout << dump_text(
                       json{{"event", "ablations"}, {"run", name_}, {"full", summary_json(summary_)}, {"arms", out}})
                << "\n";
      return 0;
    }
    std::cout << "\nablations of " << name_ << " (strategy " << record_.strategy
              << "), each against the full run on the answers both judged:\n";
    std::cout << std::left << std::setw(28) << "run" << std::setw(10) << "accuracy" << std::setw(10) << "vs full"
              << std::setw(12) << "McNemar p" << std::setw(10) << "tokens"
              << "$\n";
    std::cout << std::setw(28) << "full" << std::setw(10) << percent(summary_.accuracy) << std::setw(10) << ""
              << std::setw(12) << "" << std::setw(10) << summary_.tokens << dollars(summary_.usd) << "\n";
    for (const Arm& a : arms) {
      std::ostringstream delta, p;
      if (a.vs) {
        delta << std::showpos << std::fixed << std::setprecision(1)
              << (a.vs->candidate.accuracy - a.vs->baseline.accuracy) * 100;
        p << std::setprecision(3) << a.vs->test.exact_p;
      }
      std::cout << std::setw(28) << ("no " + a.off) << std::setw(10) << percent(a.summary.accuracy) << std::setw(10)
                << delta.str() << std::setw(12) << p.str() << std::setw(10) << a.summary.tokens
                << dollars(a.summary.usd) << "\n";
    }
    return 0;
  }

  // --plot: accuracy against cost for this run, the model alone and each
  // ablation, as far as they ran.
  Status plot() const {
    std::vector<eval::PlotPoint> points;
    points.push_back(
        {record_.strategy + (ablation_summaries_.empty() ? "" : " (full)"), summary_.usd, summary_.accuracy});
    if (alone_summary_)
      points.push_back({record_.baseline_model + " alone", alone_summary_->usd, alone_summary_->accuracy});
    for (const auto& [off, s] : ablation_summaries_) points.push_back({"no " + off, s.usd, s.accuracy});
    Status s = eval::write_accuracy_cost_plot(o_.plot, "eval " + name_ + ": accuracy against cost", points);
    if (s.ok() && !o_.common.json) std::cout << "plot: " << o_.plot << "\n";
    return s;
  }

  // Reads the run record and the suite, and what was already scored,
  // before anything is spent.
  int prepare() {
    bool resuming = !o_.resume.empty();
    name_ = arm_ ? arm_name_ : resuming ? o_.resume : o_.name;
    if (name_.empty() && !o_.suite.empty()) name_ = fs::path(o_.suite).stem().string();
    if (name_.empty() || name_.find('/') != std::string::npos)
      return eval_fail("--name: the run needs a name without '/'");
    auto c = load_cli_config(o_.common, /*needs_model=*/true);
    if (!c.ok()) return eval_fail(c.error().message);
    config_ = *c;

    const bool fresh = no_journal_yet(config_.store_path);
    if (resuming && fresh) return eval_fail("--resume " + name_ + ": no journal at " + config_.store_path);
    // No company runs yet: this command is the journal's only writer.
    auto st = fresh ? store::JournalStore::open(config_.store_path) : open_to_write(config_);
    if (!st.ok()) return eval_fail(st.error().message, 1);
    {
      auto rows = (*st)->state(eval::kEvalState);
      if (!rows.ok()) return eval_fail(rows.error().message, 1);
      for (auto& r : *rows) state_[r.key] = r.value;
      auto it = state_.find(eval::run_key(name_));
      if (arm_) {
        // An ablation run goes on where it stopped, or starts.
        resuming = it != state_.end();
        record_ = resuming ? record_from_json(it->second) : *arm_;
      } else if (resuming) {
        if (it == state_.end())
          return eval_fail("--resume " + name_ + ": no eval run of that name in " + config_.store_path);
        record_ = record_from_json(it->second);
        if (!o_.suite.empty() && fs::absolute(o_.suite).string() != record_.suite)
          return eval_fail("--resume " + name_ + ": the run evaluates " + record_.suite + ", not " + o_.suite);
        if (!o_.common.strategy.empty() && o_.common.strategy != record_.strategy)
          return eval_fail("--resume " + name_ + ": the run's strategy is " + record_.strategy + ", not " +
                           o_.common.strategy);
        if (o_.limit > 0) record_.limit = o_.limit;  // a longer (or shorter) run goes on
        if (o_.runs > 0) record_.runs = o_.runs;
        if (o_.timeout_s > 0) record_.timeout_s = o_.timeout_s;
      } else {
        if (o_.suite.empty()) return eval_fail("give --suite FILE.jsonl (or --resume RUN)");
        if (it != state_.end())
          return eval_fail("an eval run named '" + name_ + "' is already in " + config_.store_path +
                           ": go on with --resume " + name_ + ", or choose another --name");
        record_.suite = fs::absolute(o_.suite).string();
        record_.strategy = o_.common.strategy.empty() ? config_.strategy : o_.common.strategy;
        record_.limit = o_.limit;
        record_.runs = std::max(1, o_.runs);
        record_.timeout_s = o_.timeout_s;
        record_.seed = o_.seed;
      }
      if (!arm_ && !o_.ablate.empty()) record_.ablate = o_.ablate;
    }
    // The recorded model unless another is asked for now.
    if (resuming && o_.common.model.empty() && !record_.model.empty()) config_.ceo.model = record_.model;
    record_.model = config_.ceo.model;
    if (record_.strategy.empty()) record_.strategy = "hashiru";
    if (!strategy::find_strategy(record_.strategy))
      return eval_fail("--strategy: unknown strategy '" + record_.strategy + "' (" + strategy::strategy_names_text() +
                       ")");
    if (!record_.ablate.empty())
      if (int code = check_ablate(); code != 0) return code;
    if (!record_.switched_off.empty()) {
      // The run's configuration with its switch off, read again so that the
      // loader checks it as it checks a file.
      const strategy::StrategyInfo* info = strategy::find_strategy(record_.strategy);
      auto w = std::find_if(info->switches.begin(), info->switches.end(),
                            [&](const strategy::StrategySwitch& x) { return x.name == record_.switched_off; });
      if (w == info->switches.end())
        return eval_fail(name_ + ": '" + record_.switched_off + "' is not a switch of " + record_.strategy);
      CommonOptions common = o_.common;
      common.model = record_.model;
      auto off = load_cli_config(common, /*needs_model=*/true, {{w->config_key, "false"}});
      if (!off.ok()) return eval_fail(off.error().message);
      config_ = *off;
    }

    // The whole suite is checked before anything is spent.
    auto items = suite::load_suite_file(record_.suite);
    if (!items.ok()) return eval_fail(items.error().message);
    items_ = std::move(items).value();
    std::vector<std::string> refused;
    for (const auto& i : items_)
      if (!eval::eval_can_score(i))
        refused.push_back("task " + i.id + " (" + (i.format.empty() ? "no format" : "format " + i.format) + ")");
    if (!refused.empty()) {
      std::string list;
      for (size_t k = 0; k < refused.size() && k < 10; ++k) list += "\n  " + refused[k];
      if (refused.size() > 10) list += "\n  (and " + std::to_string(refused.size() - 10) + " more)";
      return eval_fail(record_.suite + ": kaisha eval scores one answer per task by its format; it cannot score" +
                       list);
    }
    if (record_.seed && record_.limit <= 0) return eval_fail("--seed: give --limit N, the size of the seeded sample");
    if (record_.limit > 0 && size_t(record_.limit) < items_.size()) {
      if (record_.seed) {
        std::vector<suite::SuiteItem> sample;
        for (size_t i : suite::sample_indices(items_.size(), size_t(record_.limit), *record_.seed))
          sample.push_back(items_[i]);
        items_ = std::move(sample);
      } else {
        items_.resize(size_t(record_.limit));
      }
    }
    if (!o_.baseline.empty()) {
      // A run of that name, else a model ref (PROVIDER:MODEL) answering alone.
      const bool a_run = state_.count(eval::run_key(o_.baseline)) > 0 || o_.baseline.find(':') == std::string::npos;
      record_.baseline = a_run ? o_.baseline : alone_name(name_);
      record_.baseline_model = a_run ? "" : o_.baseline;
    }
    if (record_.baseline_model.empty())
      if (int code = read_baseline(); code != 0) return code;
    for (int rep = 1; rep <= record_.runs; ++rep)
      for (const auto& i : items_) slots_.push_back({&i, rep});
    for (const auto& s : slots_) {
      auto it = state_.find(eval::item_key(name_, s.item->id, s.repetition));
      if (it == state_.end()) continue;
      auto r = eval::item_record_from_json(it->second);
      if (!r.ok()) return eval_fail(eval::item_key(name_, s.item->id, s.repetition) + ": " + r.error().message, 1);
      scored_[slot_key(s)] = *r;
      count(*r);
    }
    // The tasks earlier processes asked for the slots not scored yet.
    for (const auto& s : slots_) {
      if (scored_.count(slot_key(s))) continue;
      for (int attempt = 1;; ++attempt) {
        auto t = (*st)->get_task(attempt_task_id(name_, s, attempt));
        if (!t.ok()) return eval_fail(t.error().message, 1);
        if (!t->has_value()) break;
        journaled_[(*t)->id] = **t;
      }
    }
    Status saved = (*st)->save_state({eval::kEvalState, eval::run_key(name_), to_json(record_), "", "eval", wall_ms()});
    if (!saved.ok()) return eval_fail(saved.error().message, 1);
    return 0;
  }

  // The scored answers of the run named by --baseline (or recorded), checked
  // to be a run of the same suite.
  int read_baseline() {
    if (record_.baseline.empty()) return 0;
    const std::string& b = record_.baseline;
    if (b == name_) return eval_fail("--baseline " + b + ": a run cannot be its own baseline");
    auto it = state_.find(eval::run_key(b));
    if (it == state_.end()) return eval_fail("--baseline " + b + ": no eval run of that name in " + config_.store_path);
    const RunRecord theirs = record_from_json(it->second);
    if (theirs.suite != record_.suite)
      return eval_fail("--baseline " + b + ": that run evaluates " + theirs.suite + ", not " + record_.suite);
    baseline_strategy_ = theirs.strategy;
    baseline_model_ = theirs.model;
    const std::string prefix = eval::run_key(b) + "/item/";
    for (auto row = state_.lower_bound(prefix); row != state_.end() && row->first.rfind(prefix, 0) == 0; ++row) {
      auto r = eval::item_record_from_json(row->second);
      if (!r.ok()) return eval_fail(row->first + ": " + r.error().message, 1);
      baseline_[std::to_string(r->repetition) + "/" + r->item] = *r;
    }
    return 0;
  }

  static std::string slot_key(const Slot& s) { return std::to_string(s.repetition) + "/" + s.item->id; }

  // Runs and scores every slot not scored yet, each task in a company
  // session of its own: a strategy's conversation carries over between the
  // tasks of a session, and one answer must not see another. 0: all done;
  // 1: stopped (a task failed); 2: could not start.
  int answer_all() {
    if (scored_.size() == slots_.size()) return 0;  // nothing to pay for: no company needed
    if (!o_.common.quiet && !o_.common.json && !scored_.empty())
      std::cerr << "kaisha eval: " << scored_.size() << " of " << slots_.size() << " answers of run " << name_
                << " already scored; going on\n";
    limits_.wall_timeout_ms = config_.tools.sandbox_timeout_ms;
    limits_.cpu_seconds = config_.tools.sandbox_cpu_seconds;
    limits_.memory_bytes = config_.tools.sandbox_memory_mb << 20;
    limits_.max_processes = config_.tools.sandbox_max_processes;
    limits_.disk_bytes = config_.tools.sandbox_disk_mb << 20;

    print_estimate();
    InterruptGuard guard;  // before any runtime starts its threads
    if (Status t = start_tracing(config_); !t.ok()) return eval_fail(t.error().message);
    // --concurrency K: K workers take the next slot; one that cannot go on
    // (stopped_ says why) stops the others from starting more.
    std::atomic<size_t> next{0};
    std::atomic<bool> halt{false};
    auto work = [&] {
      for (size_t i = next++; i < slots_.size() && !halt; i = next++)
        if (!run_slot(slots_[i], guard)) halt = true;
    };
    std::vector<std::thread> others;
    for (int w = 1; w < o_.concurrency; ++w) others.emplace_back(work);
    work();
    for (auto& t : others) t.join();
    return halt ? 1 : 0;
  }

  // Answers and scores one slot in a company of its own. False when the run
  // cannot go on (stopped_ says why).
  bool run_slot(const Slot& s, InterruptGuard& guard) {
    {
      std::lock_guard lock(mu_);
      if (scored_.count(slot_key(s))) return true;
      if (!stopped_.empty()) return false;
      if (o_.max_usd > 0 && so_far_.usd >= o_.max_usd) {
        stopped_ = "the run has spent $" + dollars(so_far_.usd) + ", its --max-usd is $" + dollars(o_.max_usd) +
                   "; go on with --resume " + name_ + " and a higher --max-usd";
        return false;
      }
    }
    const int made = attempts_made(s);
    const store::TaskRow* last = made > 0 ? &journaled_.at(attempt_task_id(name_, s, made)) : nullptr;
    const bool unfinished = last && (last->status == "running" || last->status == "interrupted");
    // It finished before its score was kept: scored from the journal.
    if (last && last->status == "done") return score_and_keep(nullptr, s, result_of(*last));
    actors::RuntimeOptions ro;
    ro.config = config_;
    ro.chat = actors::make_provider_chat_client(config_);
    // The company's own transcript stays in the journal (`kaisha history`);
    // the terminal shows the items.
    ro.progress = std::make_shared<ProgressPrinter>(false, true);
    ro.strategy = record_.strategy;
    ro.session_id = unfinished ? last->session_id : "";
    ro.resume = unfinished;
    auto started = actors::CompanyRuntime::start(std::move(ro));
    if (!started.ok()) return stop_with(started.error().message);
    actors::CompanyRuntime* runtime = started->get();
    guard.watch(runtime);
    msg::TaskResult r;
    const std::string task_id = unfinished ? last->id : attempt_task_id(name_, s, made + 1);
    bool fired = false;
    {
      TaskTimer timer(runtime, task_id, record_.timeout_s);
      if (unfinished) {
        // The task a killed process left: finished from the journal, its
        // completed model calls not made again.
        auto resumed = runtime->resume_interrupted(last->id);
        if (!resumed.ok() || resumed->empty()) {
          r.ok = false;
          r.error = resumed.ok() ? "it could not be resumed" : resumed.error().message;
        } else {
          r = resumed->front();
        }
      } else {
        r = runtime->run_task(s.item->input, task_id);
      }
      fired = timer.fired();
    }
    bool kept = false;
    if (!r.ok && fired)
      kept = score_and_keep(runtime, s, r, "no answer within " + std::to_string(record_.timeout_s) + " s (--timeout)");
    else if (!r.ok)
      stop_with("task " + s.item->id + " (run " + std::to_string(s.repetition) + ") " +
                (r.canceled ? "was canceled" : "failed") + ": " + (r.error.empty() ? r.answer : r.error) +
                "; go on with --resume " + name_);
    else
      kept = score_and_keep(runtime, s, r);
    guard.unwatch(runtime);
    return kept;
  }

  // Records why the run stops (the first reason wins); always false.
  bool stop_with(const std::string& why) {
    std::lock_guard lock(mu_);
    if (stopped_.empty()) stopped_ = why;
    return false;
  }

  // The most the tasks still to answer can spend, before anything is: each
  // runs in a session of its own under the config's expense budget.
  void print_estimate() const {
    const size_t left = slots_.size() - scored_.size();
    const bool capped = config_.switches.economy_budget;
    const double each = config_.budget.expense_total;
    if (o_.common.json) {
      json line{{"event", "estimate"}, {"run", name_}, {"tasks", left}};
      line["max_usd_per_task"] = capped ? json(each) : json(nullptr);
      line["max_usd"] = capped ? json(each * double(left)) : json(nullptr);
      std::cout << dump_text(line) << "\n" << std::flush;
      return;
    }
    if (o_.common.quiet) return;
    std::cerr << "kaisha eval: " << left << " task" << (left == 1 ? "" : "s") << " to answer; ";
    if (capped)
      std::cerr << "each runs under the config's $" << dollars(each) << " expense budget, so at most $"
                << dollars(each * double(left)) << (o_.max_usd > 0 ? " (--max-usd $" + dollars(o_.max_usd) + ")" : "")
                << "\n";
    else
      std::cerr << "the economy_budget switch is off, so nothing bounds what they spend"
                << (o_.max_usd > 0 ? " but --max-usd $" + dollars(o_.max_usd) : "") << "\n";
  }

  // How many tasks were asked for `s` in earlier processes (their ids are
  // in the journal).
  int attempts_made(const Slot& s) const {
    int n = 0;
    while (journaled_.count(attempt_task_id(name_, s, n + 1))) ++n;
    return n;
  }

  static msg::TaskResult result_of(const store::TaskRow& t) {
    msg::TaskResult r;
    r.task_id = t.id;
    r.ok = t.status == "done";
    r.answer = t.final_answer;
    r.error = t.error;
    r.tokens_in = t.tokens_in;
    r.tokens_out = t.tokens_out;
    r.expense = t.expense;
    r.wall_ms = t.wall_ms;
    return r;
  }

  // Scores a finished task's answer and keeps the score in the journal
  // before the next item starts. False (stopped_ says why) when it could not
  // be kept.
  // `timed_out`: the task ran out of time; it is scored as wrong, saying so.
  // `runtime`: the company that answered, whose journal writer keeps the
  // score (null: none runs; the store is opened).
  bool score_and_keep(actors::CompanyRuntime* runtime, const Slot& s, const msg::TaskResult& r,
                      const std::string& timed_out = "") {
    eval::ItemRecord rec;
    rec.item = s.item->id;
    rec.repetition = s.repetition;
    rec.task_id = r.task_id;
    rec.answer = r.answer;
    rec.tokens_in = r.tokens_in;
    rec.tokens_out = r.tokens_out;
    rec.usd = r.expense;
    rec.ms = r.wall_ms;
    eval::ItemScore score;
    if (!timed_out.empty()) {
      rec.task_ok = false;
      rec.error = r.error;
      score.correct = false;
      score.feedback = timed_out;
    } else if (s.item->format == suite::kCode) {
      // Blocking up to the sandbox's clock: this is the command's own thread, not an actor's.
      auto ran = eval::score_code_item(*s.item, r.answer, limits_);
      if (ran.ok())
        score = *ran;
      else
        score.feedback = ran.error().message;  // says the sandbox could not run the tests
    } else {
      score = eval::score_item(*s.item, r.answer);
    }
    rec.correct = score.correct;
    rec.score = score.score;
    rec.feedback = score.feedback;
    Status saved = keep(runtime, {eval::kEvalState, eval::item_key(name_, rec.item, rec.repetition), eval::to_json(rec),
                                  "", "eval", wall_ms()});
    if (!saved.ok()) return stop_with("the score of task " + rec.item + " could not be kept: " + saved.error().message);
    std::lock_guard lock(mu_);
    scored_[slot_key(s)] = rec;
    count(rec);
    print_progress(rec);
    return true;
  }

  // Saves a row of state through the running company's journal writer, or
  // directly when no company runs.
  Status keep(actors::CompanyRuntime* runtime, const store::StateRow& row) {
    if (runtime) return runtime->write_journal([&](store::JournalStore& st) { return st.save_state(row); });
    auto st = open_to_write(config_);
    if (!st.ok()) return st.error();
    return (*st)->save_state(row);
  }

  // Adds an answer to the running totals the progress lines show.
  void count(const eval::ItemRecord& rec) {
    if (rec.correct) {
      ++so_far_.judged;
      so_far_.correct += *rec.correct;
    }
    so_far_.usd += rec.usd;
    so_far_.ms += rec.ms;
  }

  void print_progress(const eval::ItemRecord& rec) {
    if (o_.common.json) {
      json line = eval::to_json(rec);
      line["event"] = "item";
      line["run"] = name_;
      std::cout << dump_text(line) << "\n" << std::flush;
      return;
    }
    if (o_.common.quiet) return;
    std::cerr << "» " << scored_.size() << "/" << slots_.size() << " " << utf8::one_line(rec.item, 60) << ": "
              << (rec.correct ? (*rec.correct ? "correct" : "wrong") : "no verdict") << " · accuracy so far "
              << so_far_.correct << "/" << so_far_.judged << " · $" << dollars(so_far_.usd) << " · "
              << seconds(so_far_.ms) << "\n";
  }

  int report() {
    std::vector<eval::ItemOutcome> all;
    std::map<int, std::vector<eval::ItemOutcome>> per_run;
    std::vector<const eval::ItemRecord*> rows;
    for (const auto& s : slots_) {
      auto it = scored_.find(slot_key(s));
      if (it == scored_.end()) continue;
      all.push_back(it->second.outcome());
      per_run[s.repetition].push_back(it->second.outcome());
      rows.push_back(&it->second);
    }
    eval::RunSummary total = eval::summarize(all);
    const bool complete = rows.size() == slots_.size();
    std::optional<eval::RunComparison> vs;
    if (!record_.baseline.empty()) vs = eval::compare_runs(scored_, baseline_);
    comparison_ = vs;
    summary_ = total;
    if (!o_.csv.empty()) {
      std::ofstream out(o_.csv, std::ios::binary);
      out << "item,run,format,correct,score,tokens_in,tokens_out,usd,ms,answer,feedback\n";
      std::map<std::string, std::string> formats;
      for (const auto& i : items_) formats[i.id] = i.format;
      for (const auto* r : rows)
        out << csv_field(r->item) << "," << r->repetition << "," << formats[r->item] << ","
            << (r->correct ? (*r->correct ? "1" : "0") : "") << "," << (r->score ? std::to_string(*r->score) : "")
            << "," << r->tokens_in << "," << r->tokens_out << "," << dollars(r->usd) << "," << r->ms << ","
            << csv_field(r->answer) << "," << csv_field(r->feedback) << "\n";
      if (!out) stopped_ += (stopped_.empty() ? "" : "; ") + std::string("cannot write ") + o_.csv;
    }
    if (o_.common.json) {
      json line = summary_json(total);
      line["event"] = "summary";
      line["run"] = name_;
      line["suite"] = record_.suite;
      line["strategy"] = record_.strategy;
      line["model"] = record_.model;
      line["complete"] = complete;
      line["stopped"] = stopped_;
      if (per_run.size() > 1) {
        json runs = json::array();
        for (const auto& [rep, outcomes] : per_run) {
          json r = summary_json(eval::summarize(outcomes));
          r["run"] = rep;
          runs.push_back(r);
        }
        line["runs"] = runs;
      }
      if (vs) line["baseline"] = comparison_json(*vs);
      std::cout << dump_text(line) << "\n";
    } else {
      if (!stopped_.empty()) std::cerr << "kaisha eval: stopped: " << stopped_ << "\n";
      std::cout << "eval " << name_ << ": " << record_.suite << ", strategy " << record_.strategy << ", model "
                << record_.model << ", " << items_.size() << " items × " << record_.runs << " run"
                << (record_.runs > 1 ? "s" : "") << (complete ? "" : " (incomplete)") << "\n";
      std::cout << std::left << std::setw(6) << "run" << std::setw(7) << "items" << std::setw(9) << "correct"
                << std::setw(10) << "accuracy" << std::setw(18) << "95% Wilson" << std::setw(9) << "tokens"
                << std::setw(10) << "$"
                << "time\n";
      for (const auto& [rep, outcomes] : per_run) print_table_row(std::to_string(rep), eval::summarize(outcomes));
      if (per_run.size() > 1) print_table_row("all", total);
      if (total.judged < total.items)
        std::cout << total.items - total.judged << " answers could not be judged (not counted in the accuracy)\n";
      std::cout << "cost efficiency CS = " << std::fixed << std::setprecision(1) << total.cost_efficiency << "\n";
      if (vs) print_comparison(*vs);
    }
    return complete && stopped_.empty() ? 0 : 1;
  }

  json comparison_json(const eval::RunComparison& c) const {
    json j{{"run", record_.baseline},
           {"strategy", baseline_strategy_},
           {"model", baseline_model_},
           {"paired", c.paired},
           {"unpaired", c.unpaired},
           {"candidate", summary_json(c.candidate)},
           {"baseline", summary_json(c.baseline)},
           {"mcnemar",
            {{"b", c.test.b},
             {"c", c.test.c},
             {"exact_p", c.test.exact_p},
             {"chi2", c.test.chi2},
             {"chi2_p", c.test.chi2_p}}}};
    if (c.per_repetition.valid)
      j["paired_t"] = {{"n", c.per_repetition.n},
                       {"mean", c.per_repetition.mean},
                       {"t", c.per_repetition.t},
                       {"df", c.per_repetition.df},
                       {"p", c.per_repetition.p}};
    return j;
  }

  void print_comparison(const eval::RunComparison& c) const {
    std::cout << "against " << record_.baseline << " (strategy " << baseline_strategy_ << ", model " << baseline_model_
              << "), on the " << c.paired << " answers both judged";
    if (c.unpaired > 0) std::cout << " (" << c.unpaired << " not in both)";
    std::cout << ":\n";
    std::cout << "  accuracy " << percent(c.candidate.accuracy) << " vs " << percent(c.baseline.accuracy) << " ("
              << std::showpos << std::fixed << std::setprecision(1)
              << (c.candidate.accuracy - c.baseline.accuracy) * 100 << std::noshowpos << " points)\n";
    std::cout << "  McNemar: " << c.test.b << " right only here, " << c.test.c
              << " right only there; exact p = " << std::defaultfloat << std::setprecision(3) << c.test.exact_p << "\n";
    if (c.per_repetition.valid)
      std::cout << "  paired t over " << c.per_repetition.n << " runs: t = " << c.per_repetition.t
                << ", p = " << c.per_repetition.p << "\n";
    std::cout << "  tokens " << c.candidate.tokens << " vs " << c.baseline.tokens << "; $ " << dollars(c.candidate.usd)
              << " vs " << dollars(c.baseline.usd) << "\n";
  }

  EvalOptions o_;
  std::optional<RunRecord> arm_;                   // set for an ablation run: its record when it starts
  std::optional<eval::RunSummary> alone_summary_;  // --baseline MODEL's run
  std::vector<std::pair<std::string, eval::RunSummary>> ablation_summaries_;  // per switch turned off
  std::string arm_name_;
  std::optional<eval::RunComparison> comparison_;
  eval::RunSummary summary_;
  std::string name_;
  config::Config config_;
  RunRecord record_;
  std::map<std::string, json> state_;                // the "eval" state, by key
  std::map<std::string, store::TaskRow> journaled_;  // tasks earlier processes asked, by id
  std::vector<suite::SuiteItem> items_;
  std::vector<Slot> slots_;
  eval::ScoredAnswers scored_;    // by slot_key
  eval::ScoredAnswers baseline_;  // the --baseline run's, by slot_key
  std::string baseline_strategy_, baseline_model_;
  eval::RunSummary so_far_;  // running totals of scored_ (no interval)
  sandbox::SandboxLimits limits_;
  // Guards scored_, so_far_, stopped_ and the progress lines while
  // --concurrency workers answer.
  std::mutex mu_;
  std::string stopped_;
};

const bool eval_command_registered = register_command(
    "eval", "run a suite (docs/suites.md) through a strategy and score it: accuracy, tokens, $, time",
    [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<EvalOptions>();
      cmd->footer(
          "Example: kaisha eval --suite examples/suites/qa.jsonl --strategy hashiru --name first\nMore: docs/eval.md");
      cmd->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
      cmd->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
      cmd->add_option("--model", o->common.model, "the CEO's model ref (default: the config's)");
      cmd->add_option(
          "--strategy", o->common.strategy,
          "the strategy the tasks run with: " + strategy::strategy_names_text() + " (default: the config's)");
      cmd->add_flag("--json", o->common.json, "machine-readable output (JSON lines)");
      cmd->add_flag("-q,--quiet", o->common.quiet, "no progress on stderr");
      cmd->add_option("--suite", o->suite, "the tasks and their checks (JSONL, docs/suites.md)");
      cmd->add_option("--limit", o->limit, "only the first N items")->check(CLI::Range(1, 100000));
      cmd->add_option("--runs", o->runs, "answer every item this many times")->check(CLI::Range(1, 1000));
      cmd->add_option("--name", o->name, "the name the run is kept under (default: the suite's stem)");
      cmd->add_option("--resume", o->resume, "go on with the run of this name");
      cmd->add_option("--csv", o->csv, "also write one row per answer to this CSV file");
      cmd->add_option("--plot", o->plot,
                      "also draw accuracy against cost (the run, the model alone, each ablation) as this PNG file");
      cmd->add_option("--ablate", o->ablate,
                      "after the run, run the suite again with each of these switches off (or all), and compare")
          ->expected(1, -1);
      cmd->add_option("--timeout", o->timeout_s,
                      "seconds a task may take; one still running then is stopped and counted wrong")
          ->check(CLI::Range(1, 86400));
      cmd->add_option("--seed", o->seed, "with --limit N: N items sampled with this seed instead of the first N");
      cmd->add_option("--max-usd", o->max_usd,
                      "stop cleanly before the next task once the run has spent this much (go on with --resume)")
          ->check(CLI::NonNegativeNumber);
      cmd->add_option("--concurrency", o->concurrency,
                      "answer this many items at once, each in a company of its own (default 1)")
          ->check(CLI::Range(1, 64));
      cmd->add_option("--baseline", o->baseline,
                      "compare, answer by answer (McNemar's test), with this earlier run of the same suite, or with "
                      "this model (PROVIDER:MODEL) answering alone, run first as RUN-alone");
      return [o] {
        register_model_alone();
        return EvalRun(*o).run();
      };
    });

}  // namespace
}  // namespace kaisha::cli
