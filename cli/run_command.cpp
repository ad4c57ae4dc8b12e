// kaisha run / kaisha chat: start a company for a session and feed it tasks.
// kaisha resume: finish the tasks a killed process left, from the journal.
#include <iostream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/hiva_settings.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt_guard.hpp"
#include "cli/progress_printer.hpp"
#include "cli/stdin_lines.hpp"
#include "cli/terminal_questions.hpp"
#include "protocols/mcp/client/mcp_servers_start.hpp"
#include "protocols/remote/remote_agent_client.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/messages/task_result_json.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {
namespace {

// The session to resume: --session, or the latest one with --continue.
Result<std::string> session_to_resume(const CommonOptions& o, const config::Config& c) {
  if (!o.session.empty() || !o.resume_latest) return o.session;
  if (no_journal_yet(c.store_path)) return Error{"session", "--continue: no session in " + c.store_path + " yet"};
  auto st = open_to_write(c);
  if (!st.ok()) return st.error();
  auto latest = (*st)->latest_session();
  if (!latest.ok()) return latest.error();
  if (!latest->has_value()) return Error{"session", "--continue: no session in " + c.store_path + " yet"};
  return (*latest)->id;
}

Result<std::unique_ptr<actors::CompanyRuntime>> start_company(const CommonOptions& o,
                                                              std::shared_ptr<ProgressPrinter> printer,
                                                              bool resume = false,
                                                              TerminalQuestions* questions = nullptr) {
  auto c = load_cli_config(o, /*needs_model=*/true);
  if (!c.ok()) return c.error();
  if (!o.graph.empty()) {
    const std::string strategy = o.strategy.empty() ? c->strategy : o.strategy;
    if (strategy != hiva::kHivaStrategy)
      return Error{"usage", "--graph names a HiVA graph: run it with --strategy hiva (this run's strategy is " +
                                (strategy.empty() ? std::string("hashiru") : strategy) + ")"};
    auto h = config::strategy_settings<hiva::HivaSettings>(*c, hiva::kHivaStrategy);
    h.graph = o.graph;
    c->strategy_settings[hiva::kHivaStrategy] = h;
  }
  if (Status t = start_tracing(*c); !t.ok()) return t.error();
  auto session = session_to_resume(o, *c);
  if (!session.ok()) return session.error();
  actors::RuntimeOptions ro;
  ro.config = *c;
  // Remote A2A/ACP agents (a2a:URL, acp:URL#agent model refs) are hired
  // like models; everything else goes to the LLM providers.
  ro.chat = remote::make_remote_agent_client(actors::make_provider_chat_client(*c), *c);
  ro.progress = printer;
  ro.session_id = *session;
  ro.strategy = o.strategy;
  ro.resume = resume;
  ro.tool_sources = mcp::start_mcp_servers(c->mcp_servers);
  if (questions) ro.tool_sources.push_back(questions->tool());
  return actors::CompanyRuntime::start(std::move(ro));
}

void print_ledgers(actors::CompanyRuntime& rt, bool json_mode) {
  json b = rt.budget();
  if (json_mode) {
    std::cout << dump_text(json{{"event", "ledgers"}, {"session", rt.session_id()}, {"budget", b}}) << "\n";
    return;
  }
  std::cerr << "ledgers (session " << rt.session_id() << "): " << budget_line(b) << "\n";
}

void print_result(const msg::TaskResult& r, const std::string& session, bool json_mode) {
  if (json_mode) {
    json line = r;
    line["event"] = "result";
    line["session"] = session;
    std::cout << dump_text(line) << "\n";
  } else if (r.ok) {
    std::cout << r.answer << "\n";
  } else if (r.canceled) {
    std::cerr << "kaisha: task canceled: " << r.error << "\n";
  } else {
    std::cerr << "kaisha: task failed: " << r.error << "\n";
  }
  std::cout << std::flush;
}

}  // namespace

int run_command(const CommonOptions& o, const std::string& task) {
  auto printer = std::make_shared<ProgressPrinter>(o.json, o.quiet);
  InterruptGuard guard;
  // The CEO may ask its user only at a terminal: a script or CI job never
  // waits for an answer nobody will type.
  StdinLines in;
  std::unique_ptr<TerminalQuestions> questions;
  if (isatty(STDIN_FILENO)) {
    auto q = TerminalQuestions::create(in, o.json ? printer : nullptr);
    if (!q.ok()) {
      std::cerr << "kaisha: " << q.error().message << "\n";
      return 2;
    }
    questions = std::move(q).value();
  }
  auto rt = start_company(o, printer, /*resume=*/false, questions.get());
  if (!rt.ok()) {
    std::cerr << "kaisha: " << rt.error().message << "\n";
    return 2;
  }
  guard.arm(rt->get());
  if (questions) guard.on_interrupt([q = questions.get()] { return q->decline_waiting(); });
  msg::TaskResult r = questions ? questions->run_task(**rt, task) : (*rt)->run_task(task);
  print_result(r, (*rt)->session_id(), o.json);
  if (!o.quiet) print_ledgers(**rt, o.json);
  guard.arm(nullptr);  // the runtime is destroyed next
  guard.on_interrupt(nullptr);
  return r.ok ? 0 : 1;
}

namespace {

// The strategy task `only` (or else the session's oldest interrupted task)
// began with, so the resumed runtime runs it the same way; "" when the
// store does not say (the configured one is used).
Result<std::string> strategy_to_resume(const config::Config& c, const std::string& session, const std::string& only) {
  auto st = open_to_write(c);
  if (!st.ok()) return st.error();
  auto tasks = (*st)->tasks(session);
  if (!tasks.ok()) return tasks.error();
  for (const auto& t : *tasks) {
    if (!only.empty() && t.id != only) continue;
    // `running`: its process died and nobody has opened the session since
    // (start() marks it interrupted, or refuses while its process lives).
    if (t.status != "interrupted" && t.status != "running") {
      if (only.empty()) continue;
      return Error{"resume", "task " + only + " is " + t.status + ", not interrupted: there is nothing to resume"};
    }
    return t.strategy;
  }
  if (!only.empty()) return Error{"resume", "no task '" + only + "' in session " + session};
  return std::string();
}

}  // namespace

int resume_command(const CommonOptions& common, const std::string& only) {
  CommonOptions o = common;
  if (o.session.empty()) o.resume_latest = true;
  auto fail = [](const std::string& why) {
    std::cerr << "kaisha resume: " << why << "\n";
    return 2;
  };
  auto c = load_cli_config(o, /*needs_model=*/true);
  if (!c.ok()) return fail(c.error().message);
  auto session = session_to_resume(o, *c);
  if (!session.ok()) return fail(session.error().message);
  o.session = *session;
  auto strategy = strategy_to_resume(*c, *session, only);
  if (!strategy.ok()) return fail(strategy.error().message);
  if (!strategy->empty()) o.strategy = *strategy;

  auto printer = std::make_shared<ProgressPrinter>(o.json, o.quiet);
  InterruptGuard guard;
  auto rt = start_company(o, printer, /*resume=*/true);
  if (!rt.ok()) return fail(rt.error().message);
  guard.arm(rt->get());
  auto& company = **rt;
  if (company.interrupted_tasks().empty()) {
    guard.arm(nullptr);
    if (o.json)
      std::cout << dump_text(json{{"event", "resumed"}, {"session", company.session_id()}, {"tasks", 0}}) << "\n";
    else
      std::cerr << "kaisha resume: session " << company.session_id() << " has no interrupted task\n";
    return 0;
  }
  auto results = company.resume_interrupted(only);
  guard.arm(nullptr);
  if (!results.ok()) return fail(results.error().message);
  int failures = 0;
  for (const auto& r : *results) {
    if (!r.ok) ++failures;
    print_result(r, company.session_id(), o.json);
  }
  if (!o.quiet) print_ledgers(company, o.json);
  return failures == 0 ? 0 : 1;
}

int chat_command(const CommonOptions& o) {
  auto printer = std::make_shared<ProgressPrinter>(o.json, o.quiet);
  InterruptGuard guard;
  // The chat's input is its conversation: a question of the company takes
  // the next line as its answer, whether typed or piped.
  StdinLines in;
  auto questions = TerminalQuestions::create(in, o.json ? printer : nullptr);
  if (!questions.ok()) {
    std::cerr << "kaisha: " << questions.error().message << "\n";
    return 2;
  }
  auto rt = start_company(o, printer, /*resume=*/false, questions->get());
  if (!rt.ok()) {
    std::cerr << "kaisha: " << rt.error().message << "\n";
    return 2;
  }
  guard.arm(rt->get());
  guard.on_interrupt([q = questions->get()] { return q->decline_waiting(); });
  auto& company = **rt;
  std::cerr << "kaisha chat — session " << company.session_id()
            << " (/help for commands, /quit or end of input to leave)\n";
  int failures = 0;
  for (;;) {
    std::cerr << "> " << std::flush;
    StdinLines::Read read = in.next();
    if (read.got == StdinLines::Got::end) break;
    if (read.got == StdinLines::Got::interrupted) continue;  // a Ctrl-C that raced a question's answer
    if (read.got == StdinLines::Got::too_long) {
      std::cerr << "kaisha: line " << in.line_number() << " of the input is longer than " << StdinLines::kMaxLineBytes
                << " bytes; it was not sent\n";
      continue;
    }
    const std::string& line = read.text;
    if (line.empty()) continue;
    if (const std::string bad = in.utf8_problem(line); !bad.empty()) {
      std::cerr << "kaisha: " << bad << "; it was not sent\n";
      continue;
    }
    if (line == "/quit" || line == "/exit") break;
    if (line == "/help") {
      std::cerr << "/budget  /raise expense|resource AMOUNT  /switch NAME on|off  /quit\n";
      continue;
    }
    if (line == "/budget") {
      print_ledgers(company, o.json);
      continue;
    }
    const std::string word = line.substr(0, line.find(' '));
    if (word == "/raise" || word == "/switch") {
      std::istringstream in(line);
      std::string cmd, what, value;
      in >> cmd >> what >> value;
      Status s;
      if (cmd == "/raise") {
        try {
          s = company.raise_budget(what, std::stod(value));
        } catch (const std::exception&) {
          s = Error{"usage", "usage: /raise expense|resource AMOUNT (a number, got '" + value + "')"};
        }
      } else if (value == "on" || value == "off") {
        s = company.set_switch(what, value == "on");
      } else {
        s = Error{"usage", "usage: /switch NAME on|off"};
      }
      if (!s.ok())
        std::cerr << "kaisha: " << s.error().message << "\n";
      else
        print_ledgers(company, o.json);
      continue;
    }
    // A mistyped command must not become a task (and a paid model call).
    if (line[0] == '/') {
      std::cerr << "kaisha: unknown command '" << word
                << "' (/help lists them; to send a text that starts with '/', start it with a space)\n";
      continue;
    }
    msg::TaskResult r = (*questions)->run_task(company, line);
    if (!r.ok) ++failures;
    print_result(r, company.session_id(), o.json);
  }
  guard.arm(nullptr);  // the runtime is destroyed next
  guard.on_interrupt(nullptr);
  return failures == 0 ? 0 : 1;
}

}  // namespace kaisha::cli
