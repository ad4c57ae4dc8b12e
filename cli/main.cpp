// kaisha: run a company of LLM agents.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "cli/command_registry.hpp"
#include "cli/commands.hpp"
#include "kaisha/version.hpp"
#include "runtime/catalog/strategy_catalog.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace {

// "--strategy" help: each strategy's name and what it does, from the catalog.
std::string strategy_help() {
  std::string out;
  for (const auto& s : kaisha::strategy::strategies()) out += (out.empty() ? "" : "; ") + s.name + ": " + s.help;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kaisha::cli;
  namespace strategy = kaisha::strategy;
  CLI::App app{"kaisha — a company of LLM agents: a CEO that hires, asks and fires employees under a budget"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("kaisha ") + kaisha::version() + "\njournal schema version " +
                           std::to_string(kaisha::journal_schema_version()),
                       "print the version and the journal schema version this kaisha writes");
  CommonOptions o;
  auto common = [&](CLI::App* cmd, bool session_opts) {
    cmd->add_option("--config", o.config_file, "YAML config file (${ENV} substitution)");
    cmd->add_option("--db", o.db, "SQLite store (default ./kaisha.db)");
    cmd->add_flag("--json", o.json, "machine-readable output (JSON lines)");
    if (session_opts) cmd->add_option("--session", o.session, "session id (default: the latest)");
  };

  std::string task;
  auto* run = app.add_subcommand("run", "run one task and print the final answer on stdout");
  run->footer(
      "When stdin is a terminal, the CEO may ask you a question (AskUser): type the answer, or an empty line "
      "or Ctrl-C to decline (the task ends as canceled). With stdin not a terminal (a script, CI) it asks nothing.");
  common(run, false);
  run->add_option("--model", o.model, "CEO model ref, e.g. ollama:llama3.2");
  run->add_option("--session", o.session, "continue this session (its agents and budget)");
  run->add_flag("--continue", o.resume_latest, "continue the latest session");
  run->add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  run->add_option("--strategy", o.strategy, strategy_help())->check(CLI::IsMember(strategy::strategy_names()));
  run->add_option("--graph", o.graph, "with --strategy hiva: run this saved graph (kaisha graphs lists them)");
  run->add_option("task", task, "the task")->required();

  auto* chat = app.add_subcommand("chat", "multi-turn session with the CEO (stdin lines; /help)");
  chat->footer(
      "The CEO may ask you a question (AskUser): the next input line is the answer; an empty line, the end of "
      "the input or Ctrl-C declines it (that task ends as canceled, the chat goes on).");
  common(chat, false);
  chat->add_option("--model", o.model, "CEO model ref");
  chat->add_option("--session", o.session, "continue this session");
  chat->add_flag("--continue", o.resume_latest, "continue the latest session");
  chat->add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  chat->add_option("--strategy", o.strategy, strategy::strategy_names_text())
      ->check(CLI::IsMember(strategy::strategy_names()));

  std::string resume_task;
  auto* resume = app.add_subcommand(
      "resume", "finish the tasks a killed process left, replaying from the journal what they had done");
  common(resume, true);
  resume->add_option("--model", o.model, "CEO model ref");
  resume->add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  resume->add_option("task", resume_task, "only this task (default: every interrupted task of the session)");

  bool all = false;
  auto* agents = app.add_subcommand("agents", "list a session's employees");
  common(agents, true);
  agents->add_flag("--all", all, "include fired and lost agents");
  std::string library;
  agents->add_option("--library", library, "check a pyramid agent library (YAML) and show its shape instead");
  std::string generate, generate_out;
  int generate_attempts = 3;
  agents->add_option(
      "--generate", generate,
      "have the model write a pyramid agent library for this domain (with --out), checked like --library");
  agents->add_option("--out", generate_out, "with --generate: the library file to write (must not exist)");
  bool pools = false;
  std::string restore_candidate, revoke_default;
  agents->add_flag("--pools", pools, "show the pyramid's candidate pools (pruned candidates, defaults, windowed Q)");
  agents->add_option("--restore-candidate", restore_candidate,
                     "AGENT:MODEL: put a pruned candidate back in its agent's pool");
  agents->add_option("--revoke-default", revoke_default, "AGENT: run the agent's whole candidate pool again");
  agents->add_option("--attempts", generate_attempts, "with --generate: answers the model may give (1-10, default 3)")
      ->check(CLI::Range(1, 10));

  double raise_expense = 0, raise_resource = 0;
  auto* budget = app.add_subcommand("budget", "show (or raise) a session's budgets");
  common(budget, true);
  budget->add_option("--raise-expense", raise_expense, "authorise USD more expense budget");
  budget->add_option("--raise-resource", raise_resource, "authorise more resource points");

  bool sessions = false, tree = false;
  int limit = 0;
  std::string history_task;
  auto* history = app.add_subcommand("history", "a session's tasks and journaled steps");
  common(history, true);
  history->add_flag("--sessions", sessions, "list sessions instead");
  history->add_option("--limit", limit, "at most this many steps");
  history->add_option("task", history_task, "only this task");
  history->add_flag(
      "--tree", tree,
      "the task's structure: who asked whom, with tokens, $ and time (default: the session's latest task)");
  bool commits = false;
  int64_t diff_commit = 0, revert_commit = 0;
  history->add_flag("--commits", commits, "a pyramid task's commit history (merges, rejected change sets, reverts)");
  history->add_option("--diff", diff_commit, "the content diff of a commit of the task's history");
  history->add_option("--revert", revert_commit,
                      "restore the task's directory to a commit of its history, byte for byte");

  std::string script, host = "127.0.0.1";
  int port = 11435;
  auto* mock = app.add_subcommand("mock-llm", "scripted mock LLM server speaking OpenAI, Ollama, Gemini, Anthropic");
  mock->add_option("--script", script, "YAML script of rules")->required();
  mock->add_option("--port", port, "port (0 = any free port)");
  mock->add_option("--host", host, "address to bind");

  // Commands defined in their own files (cli/*_command.cpp).
  std::vector<std::pair<CLI::App*, std::function<int()>>> more;
  for (const auto& c : registered_commands()) {
    auto* cmd = app.add_subcommand(c.name, c.help);
    more.emplace_back(cmd, c.setup(cmd));
  }

  // Every command's --help ends with an example and the page that explains
  // it (scripts/check_doc_commands.py checks both).
  struct HelpFooter {
    const char* command;
    const char* example;
    const char* page;
  };
  static constexpr HelpFooter kFooters[] = {
      {"run", "kaisha run --model ollama:llama3.2 \"Compare three sorting algorithms\"", "docs/getting-started.md"},
      {"chat", "kaisha chat --continue", "docs/cli.md"},
      {"resume", "kaisha resume --session s-20261206-101500-1a2b3c4d", "docs/durability.md"},
      {"agents", "kaisha agents --library examples/pyramid/infihelper.yaml", "docs/agent-library.md"},
      {"budget", "kaisha budget --raise-expense 5", "docs/economy.md"},
      {"history", "kaisha history --tree --json", "docs/cli.md"},
      {"mock-llm", "kaisha mock-llm --script examples/demo/scenario.yaml --port 11435", "docs/testing.md"},
      {"backup", "kaisha backup /var/backups/kaisha", "docs/durability.md"},
      {"restore", "kaisha restore /var/backups/kaisha --force", "docs/durability.md"},
      {"feedback", "kaisha feedback t-20261206-101500-1a2b3c4d --wrong \"the capital is Canberra\"", "docs/memory.md"},
      {"forget", "kaisha forget --before 2026-11-01", "docs/durability.md"},
      {"journal", "kaisha journal check", "docs/durability.md"},
      {"keygen", "kaisha keygen --out ceo.key", "docs/cluster.md"},
      {"node", "kaisha node --config cluster.yaml --name ceo", "docs/cluster.md"},
      {"serve", "kaisha serve --http 127.0.0.1:8765 --config kaisha.yaml", "docs/serve.md"},
      {"submit", "kaisha submit --cluster 10.0.0.1:7100 \"Summarise the logs\"", "docs/cluster.md"},
      {"cluster", "kaisha cluster status --cluster 10.0.0.1:7100", "docs/cluster.md"},
      {"cancel", "kaisha cancel --cluster 10.0.0.1:7100 --task t-20261206-101500-1a2b3c4d", "docs/cluster.md"},
      {"watch", "kaisha watch 127.0.0.1:8765 --token \"$KAISHA_HTTP_TOKEN\"", "docs/telemetry.md"},
      {"pyramid", "kaisha pyramid export-training --agent coder_agent --out coder.jsonl", "docs/agent-library.md"},
  };
  for (const HelpFooter& f : kFooters) {
    CLI::App* cmd = nullptr;
    try {
      cmd = app.get_subcommand(f.command);
    } catch (const CLI::OptionNotFound&) {
      continue;
    }
    const std::string before = cmd->get_footer();
    cmd->footer((before.empty() ? "" : before + "\n\n") + "Example: " + f.example + "\nMore: " + f.page);
  }

  // Spans still queued when a command returns are sent before the process
  // ends (after the command's own objects, whose last spans they may be).
  struct FlushTraces {
    ~FlushTraces() { kaisha::telemetry::flush_tracer(); }
  } flush_traces;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*run) return run_command(o, task);
  if (*chat) return chat_command(o);
  if (*resume) return resume_command(o, resume_task);
  if (*agents && !generate.empty()) return generate_library_command(o, generate, generate_out, generate_attempts);
  if (*agents && (pools || !restore_candidate.empty() || !revoke_default.empty()))
    return candidate_pools_command(o, restore_candidate, revoke_default);
  if (*agents) return library.empty() ? agents_command(o, all) : agent_library_command(library, o.json);
  if (*budget) return budget_command(o, raise_expense, raise_resource);
  if (*history && commits) return history_commits_command(o, history_task, "commits", 0);
  if (*history && history->count("--diff")) return history_commits_command(o, history_task, "diff", diff_commit);
  if (*history && history->count("--revert")) return history_commits_command(o, history_task, "revert", revert_commit);
  if (*history) return tree ? history_tree_command(o, history_task) : history_command(o, sessions, limit, history_task);
  if (*mock) return mock_llm_command(script, host, port);
  for (auto& [cmd, runner] : more)
    if (*cmd) return runner();
  return 2;
}
