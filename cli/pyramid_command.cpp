// kaisha pyramid: the pyramid's agent-level evolution (InfiAgent's Eq. 13,
// m_i <- train(m_i, D(B_main))).
//   kaisha pyramid export-training --agent A [--since DAY] [--out FILE] [--metadata]
//       D(B_main) of agent A: its validated main-branch calls in every
//       finished pyramid task of the journal, as chat-format JSONL.
//   kaisha pyramid train --agent A [--since DAY] [--out FILE]
//       exports that dataset, then runs pyramid.training.command once for
//       every candidate model of A, each run saved as the pyramid's strategy
//       state "training/<A>" (model, the version the trainer made, outcome,
//       the dataset's SHA-256) before the next starts.
//   kaisha pyramid trained [--agent A]
//       every recorded training run.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/utc_day.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/dashboard/journal_views.hpp"
#include "runtime/pyramid/agent_library.hpp"
#include "runtime/pyramid/entry/pyramid_settings.hpp"
#include "runtime/pyramid/training_data.hpp"
#include "runtime/sandbox/process_runner.hpp"
#include "runtime/sandbox/program_path.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/tools/sha256.hpp"

extern char** environ;

namespace kaisha::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPyramid = "pyramid";        // the pyramid's strategy state
constexpr const char* kTrainingKey = "training/";  // + agent: one version per training run
constexpr size_t kStderrKept = 2000;               // bytes of a trainer's stderr kept in its record

struct PyramidOptions {
  CommonOptions common;
  std::string agent;
  std::string since;
  std::string out;
  bool metadata = false;
};

int pyramid_fail(const std::string& why, int code = 2) {
  std::cerr << "kaisha pyramid: " << why << "\n";
  return code;
}

struct Dataset {
  std::string text;  // the JSONL
  size_t records = 0;
  size_t tasks = 0;  // tasks that gave at least one record
  std::string sha256;
};

// The agent's records in every finished pyramid task started at or after
// `since_ms`, oldest session and task first: the same journal gives the same
// bytes.
Result<Dataset> collect(store::JournalStore& st, const std::string& agent, int64_t since_ms, bool metadata) {
  auto sessions = st.list_sessions();
  if (!sessions) return sessions.error();
  Dataset d;
  for (auto s = sessions->rbegin(); s != sessions->rend(); ++s) {
    auto tasks = st.tasks(s->id);
    if (!tasks) return tasks.error();
    for (const auto& t : *tasks) {
      // A running or interrupted task may still revise what it merged.
      if (t.strategy != kPyramid || t.status == "running" || t.status == "interrupted") continue;
      if (t.started_at < since_ms) continue;
      auto rows = st.task_steps(t.id);
      if (!rows) return rows.error();
      std::vector<strategy::TaskStep> steps;
      steps.reserve(rows->size());
      for (auto& r : *rows) steps.push_back(dashboard::task_step(std::move(r)));
      const auto records = pyramid::main_branch_records(steps, t.id, agent);
      if (!records.empty()) ++d.tasks;
      for (const auto& r : records) {
        d.text += r.chat(metadata).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
        ++d.records;
      }
    }
  }
  d.sha256 = tools::sha256_hex(d.text);
  return d;
}

struct Setup {
  config::Config config;
  pyramid::PyramidConfig pyramid;
  std::unique_ptr<store::JournalStore> store;
  int64_t since_ms = 0;
};

// The config, the journal (read-only unless `write`) and --since; an
// --agent the configured library does not hold is refused with the ones it does.
Result<Setup> open_setup(const PyramidOptions& o, bool write) {
  Setup s;
  auto c = load_cli_config(o.common, /*needs_model=*/false);
  if (!c) return c.error();
  s.config = std::move(c).value();
  s.pyramid = config::strategy_settings<pyramid::PyramidConfig>(s.config, pyramid::kSection);
  if (!o.since.empty()) {
    auto day = utc_day_start_ms(o.since);
    if (!day) return Error{"usage", "--since " + day.error().message};
    s.since_ms = *day;
  }
  if (!s.pyramid.library.empty()) {
    auto library = pyramid::AgentLibrary::load_file(s.pyramid.library);
    if (!library) return library.error();
    if (!library->find(o.agent)) {
      std::string known;
      for (const auto& a : library->agents()) known += (known.empty() ? "" : ", ") + a.name;
      return Error{"usage", "--agent '" + o.agent + "' is not an agent of " + s.pyramid.library + " (" + known + ")"};
    }
  }
  if (no_journal_yet(s.config.store_path)) return Error{"usage", "no journal at " + s.config.store_path + " yet"};
  auto st = write ? open_to_write(s.config) : store::JournalStore::open_read_only(s.config.store_path);
  if (!st) return st.error();
  s.store = std::move(st).value();
  return s;
}

Status write_file(const std::string& path, const std::string& text) {
  std::error_code ec;
  if (const fs::path dir = fs::path(path).parent_path(); !dir.empty()) fs::create_directories(dir, ec);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) return Error{"io", "cannot write " + path};
  return Status::Ok();
}

int export_training(const PyramidOptions& o) {
  auto s = open_setup(o, /*write=*/false);
  if (!s) return pyramid_fail(s.error().message, s.error().code == "usage" || s.error().code == "config" ? 2 : 1);
  auto d = collect(*s->store, o.agent, s->since_ms, o.metadata);
  if (!d) return pyramid_fail(d.error().message, 1);
  if (o.out.empty()) {
    std::cout << d->text << std::flush;
  } else if (Status w = write_file(o.out, d->text); !w.ok()) {
    return pyramid_fail(w.error().message, 1);
  }
  std::cerr << d->records << " record" << (d->records == 1 ? "" : "s") << " of " << o.agent << " from " << d->tasks
            << " task" << (d->tasks == 1 ? "" : "s") << (o.out.empty() ? "" : " in " + o.out) << " (sha256 "
            << d->sha256 << ")\n";
  return 0;
}

// "{model}" and the others replaced in one argument.
std::string substituted(std::string arg, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (size_t at = arg.find(key); at != std::string::npos; at = arg.find(key, at + value.size()))
      arg.replace(at, key.size(), value);
  return arg;
}

// The trainer's new model version: the "model" of a JSON object on its last
// non-empty stdout line; "" when it printed none.
std::string version_printed(const std::string& out) {
  std::istringstream lines(out);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  const json j = json::parse(last, nullptr, false);
  return j.is_object() && j.contains("model") && j["model"].is_string() ? utf8::repair(j["model"].get<std::string>())
                                                                        : "";
}

// The models a call of `agent` runs: its candidates, or its one model.
std::vector<std::string> models_of(const pyramid::AgentDefinition& a, const Setup& s) {
  if (!a.candidates.empty()) return a.candidates;
  if (!a.model.empty()) return {a.model};
  return {s.pyramid.model.empty() ? s.config.ceo.model : s.pyramid.model};
}

int train(const PyramidOptions& o) {
  auto s = open_setup(o, /*write=*/true);
  if (!s) return pyramid_fail(s.error().message, s.error().code == "usage" || s.error().code == "config" ? 2 : 1);
  const auto& training = s->pyramid.training;
  if (training.command.empty())
    return pyramid_fail(
        "pyramid.training.command is not set: name the program that trains a model (docs/agent-library.md)");
  if (s->pyramid.library.empty())
    return pyramid_fail("pyramid.library is not set: the library names the agent's models");
  auto program = sandbox::program_path(training.command.front());
  if (!program) return pyramid_fail("pyramid.training.command: " + program.error().message);
  auto library = pyramid::AgentLibrary::load_file(s->pyramid.library);
  if (!library) return pyramid_fail(library.error().message);
  const std::vector<std::string> models = models_of(*library->find(o.agent), *s);
  if (std::find(models.begin(), models.end(), std::string()) != models.end())
    return pyramid_fail("agent '" + o.agent +
                        "' has no model to train: give it one in the library, or set pyramid.model or ceo.model");

  auto d = collect(*s->store, o.agent, s->since_ms, /*metadata=*/false);
  if (!d) return pyramid_fail(d.error().message, 1);
  if (d->records == 0)
    return pyramid_fail("no validated main-branch calls of " + o.agent + (o.since.empty() ? "" : " since " + o.since) +
                            " in " + s->config.store_path + ": nothing to train on",
                        1);
  std::string path = o.out;
  if (path.empty()) {
    const fs::path store_dir = fs::absolute(s->config.store_path).parent_path();
    path = (store_dir / "training" / (o.agent + "-" + d->sha256.substr(0, 12) + ".jsonl")).string();
  }
  if (Status w = write_file(path, d->text); !w.ok()) return pyramid_fail(w.error().message, 1);
  const json dataset{{"path", path}, {"sha256", d->sha256}, {"records", d->records}, {"since", o.since}};
  if (!o.common.json)
    std::cout << o.agent << ": " << d->records << " record" << (d->records == 1 ? "" : "s") << " in " << path
              << " (sha256 " << d->sha256.substr(0, 12) << "), " << models.size() << " model"
              << (models.size() == 1 ? "" : "s") << " to train\n";

  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  json runs = json::array();
  bool all_ok = true;
  for (const std::string& model : models) {
    const std::map<std::string, std::string> values{
        {"{model}", model}, {"{dataset}", path}, {"{agent}", o.agent}, {"{sha256}", d->sha256}};
    sandbox::ProcessSpec spec;
    spec.path = *program;
    for (const auto& a : training.command) spec.argv.push_back(substituted(a, values));
    spec.env = env;
    spec.wall_timeout_ms = training.timeout_ms;
    const int64_t at = wall_ms();
    auto ran = sandbox::run_process(spec);
    json run{{"agent", o.agent}, {"model", model}, {"dataset", dataset}, {"at", at}};
    if (!ran) {
      run.update({{"ok", false}, {"error", ran.error().message}});
    } else {
      const bool ok = ran->exited && ran->exit_code == 0 && !ran->timed_out;
      const std::string& err = ran->stderr_data;
      run.update({{"ok", ok},
                  {"exit_code", ran->exit_code},
                  {"signal", ran->signal},
                  {"timed_out", ran->timed_out},
                  {"wall_ms", ran->wall_ms},
                  {"version", ok ? version_printed(ran->stdout_data) : ""},
                  {"stderr", utf8::repair(err.size() > kStderrKept ? err.substr(err.size() - kStderrKept) : err)}});
      if (!ok)
        run["error"] = ran->timed_out ? "timed out after " + std::to_string(training.timeout_ms) + " ms"
                       : ran->exited  ? "exited with " + std::to_string(ran->exit_code)
                                      : "killed by signal " + std::to_string(ran->signal);
    }
    all_ok = all_ok && run["ok"].get<bool>();
    // Journaled before it is reported, and before the next run starts.
    store::StateRow row{kPyramid,
                        kTrainingKey + o.agent,
                        run,
                        "",
                        "train " + model + " on " + d->sha256.substr(0, 12) + " at " + std::to_string(at),
                        wall_ms()};
    if (Status saved = s->store->save_state(row); !saved.ok()) return pyramid_fail(saved.error().message, 1);
    if (!o.common.json) {
      std::cout << "  " << model << ": "
                << (run["ok"].get<bool>()
                        ? "trained" + (run.value("version", "").empty() ? std::string()
                                                                        : " -> " + run["version"].get<std::string>())
                        : "failed: " + run.value("error", std::string()))
                << "\n";
    }
    runs.push_back(std::move(run));
  }
  if (o.common.json) std::cout << dump_text(json{{"dataset", dataset}, {"runs", runs}}) << "\n";
  return all_ok ? 0 : 1;
}

int trained(const PyramidOptions& o) {
  auto c = load_cli_config(o.common, /*needs_model=*/false);
  if (!c) return pyramid_fail(c.error().message);
  json runs = json::array();
  if (!no_journal_yet(c->store_path)) {
    auto st = store::JournalStore::open_read_only(c->store_path);
    if (!st) return pyramid_fail(st.error().message, 1);
    auto keys = (*st)->state(kPyramid);
    if (!keys) return pyramid_fail(keys.error().message, 1);
    for (const auto& k : *keys) {
      if (k.key.rfind(kTrainingKey, 0) != 0) continue;
      if (!o.agent.empty() && k.key != kTrainingKey + o.agent) continue;
      auto versions = (*st)->state_versions(kPyramid, k.key);
      if (!versions) return pyramid_fail(versions.error().message, 1);
      for (const auto& v : *versions) runs.push_back(v.value);
    }
  }
  if (o.common.json) {
    std::cout << dump_text(json{{"runs", runs}}) << "\n";
    return 0;
  }
  if (runs.empty()) std::cout << "no training runs yet\n";
  for (const json& r : runs) {
    const json& d = r.contains("dataset") ? r["dataset"] : json::object();
    std::cout << r.value("agent", "") << "  " << r.value("model", "") << "  "
              << (r.value("ok", false) ? "trained" : "failed: " + r.value("error", std::string()));
    if (const std::string v = r.value("version", ""); !v.empty()) std::cout << " -> " << v;
    std::cout << "  dataset " << d.value("sha256", "").substr(0, 12) << " (" << d.value("records", 0) << " records)\n";
  }
  return 0;
}

std::function<int()> setup(CLI::App* cmd) {
  auto o = std::make_shared<PyramidOptions>();
  cmd->require_subcommand(1);
  auto common = [o](CLI::App* sub) {
    sub->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
    sub->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
    sub->add_flag("--json", o->common.json, "machine-readable output");
  };
  auto* exp =
      cmd->add_subcommand("export-training", "an agent's validated main-branch calls as chat-format JSONL (D(B_main))");
  common(exp);
  exp->add_option("--agent", o->agent, "the library's agent")->required();
  exp->add_option("--since", o->since, "only tasks started on or after this UTC day (YYYY-MM-DD)");
  exp->add_option("--out", o->out, "write the JSONL here (default: stdout)");
  exp->add_flag("--metadata", o->metadata, "add each record's task, call, model and verdict as \"metadata\"");
  auto* tr = cmd->add_subcommand("train", "export an agent's dataset and run pyramid.training.command per candidate");
  common(tr);
  tr->add_option("--agent", o->agent, "the library's agent")->required();
  tr->add_option("--since", o->since, "only tasks started on or after this UTC day (YYYY-MM-DD)");
  tr->add_option("--out", o->out, "write the dataset here (default: training/ beside the store)");
  auto* list = cmd->add_subcommand("trained", "every recorded training run");
  common(list);
  list->add_option("--agent", o->agent, "only this agent's");
  for (CLI::App* sub : {exp, tr, list})
    sub->footer("Example: kaisha pyramid " + sub->get_name() +
                (sub == list ? std::string() : std::string(" --agent coder_agent")) + "\nMore: docs/agent-library.md");
  return [o, exp, tr, list]() {
    if (*exp) return export_training(*o);
    if (*tr) return train(*o);
    if (*list) return trained(*o);
    return 2;
  };
}

const bool pyramid_command_registered = register_command(
    "pyramid", "the pyramid's training data and trainer runs (export-training, train, trained)", setup);

}  // namespace
}  // namespace kaisha::cli
