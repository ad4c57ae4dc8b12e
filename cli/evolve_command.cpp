// kaisha evolve --task-set FILE.jsonl --iterations T [--name NAME]: evolves a
// HiVA graph against a task set (docs/suites.md), one STEV iteration per
// task, the items taken in turn; every iteration's graph is saved in the
// store under NAME (`kaisha graphs NAME` shows them). Ctrl-C or a kill loses
// nothing committed: `kaisha evolve --resume NAME` finishes the interrupted
// iteration from the journal (no completed call paid twice) and goes on.
#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/interrupt_guard.hpp"
#include "cli/progress_printer.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/routing/weight_fit.hpp"
#include "runtime/hiva/hiva_settings.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/suite/suite_file.hpp"

namespace kaisha::cli {
namespace {

struct EvolveOptions {
  CommonOptions common;
  std::string task_set;
  int iterations = 0;
  std::string name;
  std::string resume;
  double max_usd = 0;
};

int evolve_fail(const std::string& why, int code = 2) {
  std::cerr << "kaisha evolve: " << why << "\n";
  return code;
}

// What `--resume NAME` needs to go on, kept as the strategy's state
// "evolve/NAME" before the first iteration runs.
struct EvolveRun {
  std::string task_set;
  int iterations = 0;
};

std::string graph_key(const std::string& name) { return "graph/" + name; }
std::string run_key(const std::string& name) { return "evolve/" + name; }

// The latest value of `key` in HiVA's state (null when none).
Result<json> hiva_state(store::JournalStore& s, const std::string& key) {
  auto rows = s.state(hiva::kHivaStrategy);
  if (!rows.ok()) return rows.error();
  for (const auto& r : *rows)
    if (r.key == key) return r.value;
  return json(nullptr);
}

// The session whose HiVA task on one of `inputs` a killed process left
// unfinished ("" when there is none): the interrupted iteration.
Result<std::string> interrupted_session(store::JournalStore& s, const std::set<std::string>& inputs) {
  auto sessions = s.list_sessions(20);
  if (!sessions.ok()) return sessions.error();
  for (const auto& session : *sessions) {
    auto tasks = s.tasks(session.id);
    if (!tasks.ok()) return tasks.error();
    for (const auto& t : *tasks)
      if (t.strategy == hiva::kHivaStrategy && (t.status == "running" || t.status == "interrupted") &&
          inputs.count(t.input))
        return session.id;
  }
  return std::string();
}

// hiva.md §6.2: ω fitted on the routing outcomes the graph's snapshot kept,
// saved as a new version of the graph ("fit weights"), which later tasks on
// it route with. Run once the company has stopped.
Result<json> fit_knowledge_weights(const config::Config& c, const std::string& name, const hiva::HivaSettings& h) {
  auto st = open_to_write(c);
  if (!st.ok()) return st.error();
  auto value = hiva_state(**st, graph_key(name));
  if (!value.ok()) return value.error();
  if (!value->is_object() || !value->contains("graph")) return Error{"hiva", "no graph is saved yet"};
  auto graph = hiva::graph_from_json((*value)["graph"]);
  if (!graph.ok()) return graph.error();
  hiva::WeightFitSettings fs;
  fs.min_outcomes = h.fit_weights_min_outcomes;
  fs.prior = h.knowledge.weights;
  const std::vector<double>& had = graph->knowledge_weights();
  if (had.size() == 4) fs.prior = {had[0], had[1], had[2], had[3]};
  auto fit = hiva::fit_weights(hiva::routing_outcomes_from_json(value->value("routing_outcomes", json::array())), fs);
  if (!fit.ok()) return fit.error();
  graph->set_knowledge_weights({fit->weights.begin(), fit->weights.end()});
  json report{{"weights", fit->weights},
              {"correlation", fit->correlation},
              {"prior", fs.prior},
              {"prior_correlation", fit->prior_correlation},
              {"outcomes", fit->outcomes}};
  json next = *value;
  next["graph"] = hiva::to_json(*graph);
  next["weight_fit"] = report;
  next.erase("diff");  // the graph's shape did not change
  next.erase("rewards");
  const int iteration = next.value("iteration", 0);
  store::StateRow row{hiva::kHivaStrategy,
                      graph_key(name),
                      next,
                      "",
                      "fit weights after iteration " + std::to_string(iteration),
                      wall_ms()};
  if (Status saved = (*st)->save_state(row); !saved.ok()) return saved.error();
  return report;
}

int evolve_command(EvolveOptions o) {
  auto c = load_cli_config(o.common, /*needs_model=*/true);
  if (!c.ok()) return evolve_fail(c.error().message);
  const bool resuming = !o.resume.empty();
  if (resuming) o.name = o.resume;
  if (o.name.empty() && !o.task_set.empty()) o.name = std::filesystem::path(o.task_set).stem().string();
  if (o.name.empty() || o.name.find('/') != std::string::npos)
    return evolve_fail("--name: the graph needs a name without '/'");

  // The run record and where the graph stands, read before anything runs.
  EvolveRun record{o.task_set, o.iterations};
  int done = 0;
  std::string session;
  std::vector<suite::SuiteItem> items;
  {
    const bool fresh = no_journal_yet(c->store_path);
    if (resuming && fresh) return evolve_fail("--resume " + o.name + ": no journal at " + c->store_path);
    auto st = fresh ? store::JournalStore::open(c->store_path) : open_to_write(*c);
    if (!st.ok()) return evolve_fail(st.error().message, 1);
    auto run = hiva_state(**st, run_key(o.name));
    if (!run.ok()) return evolve_fail(run.error().message, 1);
    auto graph = hiva_state(**st, graph_key(o.name));
    if (!graph.ok()) return evolve_fail(graph.error().message, 1);
    if (resuming) {
      if (!run->is_object())
        return evolve_fail("--resume " + o.name + ": no evolution of that name in " + c->store_path);
      record.task_set = run->value("task_set", "");
      record.iterations = run->value("iterations", 0);
      if (o.iterations > 0) record.iterations = o.iterations;  // a longer run goes on
    } else {
      if (o.task_set.empty() || o.iterations < 1)
        return evolve_fail("give --task-set FILE.jsonl and --iterations T (or --resume NAME)");
      if (!run->is_null() || !graph->is_null())
        return evolve_fail("a graph named '" + o.name + "' is already saved: go on with --resume " + o.name +
                           ", or choose another --name");
    }
    if (graph->is_object()) done = graph->value("iteration", 0);
    // The task set is checked whole before anything is spent.
    auto loaded = suite::load_suite_file(record.task_set);
    if (!loaded.ok()) return evolve_fail(loaded.error().message);
    items = std::move(loaded).value();
    std::set<std::string> inputs;
    for (const auto& i : items)
      if (!inputs.insert(i.input).second)
        return evolve_fail(record.task_set + ": task " + i.id +
                           " has the same input as an earlier task; HiVA tells the "
                           "environment which task an answer is for by its input");
    if (resuming) {
      auto s = interrupted_session(**st, inputs);
      if (!s.ok()) return evolve_fail(s.error().message, 1);
      session = *s;
    } else {
      record.task_set = std::filesystem::absolute(record.task_set).string();
      store::StateRow row{hiva::kHivaStrategy,
                          run_key(o.name),
                          json{{"task_set", record.task_set}, {"iterations", record.iterations}},
                          "",
                          "evolve",
                          wall_ms()};
      if (Status saved = (*st)->save_state(row); !saved.ok()) return evolve_fail(saved.error().message, 1);
    }
  }
  c->strategy = hiva::kHivaStrategy;
  auto h = config::strategy_settings<hiva::HivaSettings>(*c, hiva::kHivaStrategy);
  h.save_as = o.name;
  h.iterations = 1;
  h.task_set = record.task_set;
  c->strategy_settings[hiva::kHivaStrategy] = h;

  auto printer = std::make_shared<ProgressPrinter>(o.common.json, o.common.quiet);
  InterruptGuard guard;
  if (Status t = start_tracing(*c); !t.ok()) return evolve_fail(t.error().message);
  actors::RuntimeOptions ro;
  ro.config = *c;
  ro.chat = actors::make_provider_chat_client(*c);
  ro.progress = printer;
  ro.session_id = session;
  ro.strategy = hiva::kHivaStrategy;
  ro.resume = !session.empty();
  auto rt = actors::CompanyRuntime::start(std::move(ro));
  if (!rt.ok()) return evolve_fail(rt.error().message);
  guard.arm(rt->get());

  int known = 0, succeeded = 0;
  double spent = 0;
  json last = json::object();
  auto account = [&](const msg::TaskResult& r) {
    spent += r.expense;
    const json& m = r.metadata;
    if (m.contains("success") && m["success"].is_boolean()) {
      ++known;
      succeeded += m["success"].get<bool>();
    }
    done = std::max<int>(done, m.value("last_iteration", done));
    last = m;
    if (o.common.json) {
      std::cout << dump_text(json{{"event", "iteration"},
                                  {"iteration", done},
                                  {"ok", r.ok},
                                  {"success", m.value("success", json(nullptr))},
                                  {"agents", m.value("agents", 0)},
                                  {"edges", m.value("edges", 0)},
                                  {"usd", r.expense}})
                << "\n";
    } else {
      std::cerr << "» iteration " << done << ": " << (r.ok ? "" : "failed, ")
                << (m.contains("success") && m["success"].is_boolean()
                        ? (m["success"].get<bool>() ? "success" : "failure")
                        : "no verdict")
                << ", " << m.value("agents", 0) << " agents, " << m.value("edges", 0) << " edges, $" << r.expense
                << "\n";
    }
  };
  int code = 0;
  if (!session.empty()) {
    auto resumed = (*rt)->resume_interrupted();
    if (!resumed.ok()) {
      code = evolve_fail(resumed.error().message, 1);
    } else {
      for (const auto& r : *resumed) account(r);
    }
  }
  std::string stopped;
  while (code == 0 && done < record.iterations) {
    if (o.max_usd > 0 && spent >= o.max_usd) {
      stopped = "the budget cap of $" + std::to_string(o.max_usd) + " was reached";
      break;
    }
    const auto& item = items[size_t(done) % items.size()];
    msg::TaskResult r = (*rt)->run_task(item.input);
    const int before = done;
    account(r);
    if (!r.ok || done == before) {
      stopped = r.canceled
                    ? "the iteration was canceled"
                    : "iteration " + std::to_string(before + 1) + " failed: " + (r.error.empty() ? r.answer : r.error);
      code = 1;
      break;
    }
  }
  guard.arm(nullptr);
  rt->reset();  // the journal's writer stops: the fit below writes the store itself
  json fitted = nullptr;
  std::string not_fitted;
  if (code == 0 && h.fit_weights_min_outcomes > 0) {
    auto fit = fit_knowledge_weights(*c, o.name, h);
    if (!fit.ok())
      not_fitted = fit.error().message;
    else
      fitted = *fit;
  }
  // CS = P x 100 / (C + 0.01) (hiva.md §14 item 24), P the share of answers
  // the environment judged right, C the dollars spent by this command.
  const double p = known > 0 ? double(succeeded) / known : 0.0;
  const double cs = p * 100.0 / (spent + 0.01);
  if (o.common.json) {
    std::cout << dump_text(json{{"event", "evolved"},
                                {"name", o.name},
                                {"iteration", done},
                                {"accuracy", known > 0 ? json(p) : json(nullptr)},
                                {"usd", spent},
                                {"cost_efficiency", known > 0 ? json(cs) : json(nullptr)},
                                {"knowledge_weights", fitted},
                                {"weights_not_fitted", not_fitted},
                                {"stopped", stopped}})
              << "\n";
  } else {
    if (!stopped.empty()) std::cerr << "kaisha evolve: stopped: " << stopped << "\n";
    std::cout << "graph " << o.name << ": iteration " << done << " of " << record.iterations << ", "
              << last.value("agents", 0) << " agents, " << last.value("edges", 0) << " edges\n";
    if (known > 0)
      std::cout << "accuracy " << succeeded << "/" << known << ", $" << spent << ", cost efficiency CS = " << std::fixed
                << std::setprecision(1) << cs << "\n";
    else
      std::cout << "$" << spent << " spent; no environment verdict to score\n";
    if (fitted.is_object())
      std::cout << "knowledge weights fitted on " << fitted["outcomes"]
                << " routing outcomes: " << fitted["weights"].dump() << " (correlation of -Dist with success "
                << std::setprecision(3) << fitted["correlation"].get<double>() << ", was "
                << fitted["prior_correlation"].get<double>() << ")\n";
    else if (!not_fitted.empty())
      std::cout << "knowledge weights not fitted: " << not_fitted << "\n";
  }
  return code;
}

const bool evolve_command_registered = register_command(
    "evolve", "evolve a HiVA graph against a task set (docs/suites.md), saving it per iteration",
    [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<EvolveOptions>();
      cmd->footer(
          "Example: kaisha evolve --task-set examples/hiva/tasks.jsonl --iterations 3 --name coders\nMore: "
          "docs/hiva.md");
      cmd->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
      cmd->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
      cmd->add_option("--model", o->common.model, "model ref for HiVA's calls (default: the config's)");
      cmd->add_flag("--json", o->common.json, "machine-readable output (JSON lines)");
      cmd->add_flag("-q,--quiet", o->common.quiet, "no progress on stderr");
      cmd->add_option("--task-set", o->task_set, "the tasks (JSONL, docs/suites.md)");
      cmd->add_option("--iterations", o->iterations, "STEV iterations in all (one task each)")
          ->check(CLI::Range(1, 100000));
      cmd->add_option("--name", o->name, "the name the graph is saved under (default: the task set's stem)");
      cmd->add_option("--resume", o->resume, "go on with the evolution of this name");
      cmd->add_option("--max-usd", o->max_usd, "stop cleanly, graph saved, once this command has spent this much")
          ->check(CLI::NonNegativeNumber);
      return [o] { return evolve_command(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
