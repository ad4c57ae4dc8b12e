// A strategy that exists only in this test: its driver, its config section,
// one event kind of its own and its renderer, written without CAF and
// registered with actors::register_strategy. A task runs through kaisha's
// own runtime (CompanyRuntime) against the scripted mock LLM over HTTP.
#include <gtest/gtest.h>

#include <algorithm>
#include <any>
#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "runtime/company/tool_error_class.hpp"
#include "runtime/config/config_loader.hpp"
#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "runtime/store/journal_store.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::actors::registered_strategy_test {
namespace {

// ------------------------------------------------- the strategy, no CAF

// "echo": asks its model `rounds` times, each round's prompt the previous
// answer, reports every answer as its own event, and answers with the last.
class EchoDriver {
 public:
  EchoDriver(std::string input, std::string prefix, int rounds)
      : input_(std::move(input)), prefix_(std::move(prefix)), rounds_(rounds) {}

  driver::Effects start() { return {ask(input_)}; }

  driver::Effects on(const driver::Outcome& o) {
    const auto* m = std::get_if<driver::ModelAnswered>(&o);
    if (!m) return {};
    if (!m->ok) return {driver::Finish{false, "the echo model failed: " + m->error}};
    const std::string text = m->response.message.content;
    driver::Effects out;
    driver::add_strategy_event(out, "echo", "echoed", text, json{{"round", round_}}, /*journaled=*/true);
    if (round_ < rounds_) {
      out.push_back(ask(text));
    } else {
      out.push_back(driver::Finish{true, text, json{{"strategy", "echo"}, {"rounds", rounds_}}});
    }
    return out;
  }

  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  driver::CallModel ask(const std::string& text) {
    driver::CallModel c;
    c.id = ++round_;
    c.purpose = "echo";
    llm::ChatMessage m;  // a user message
    m.content = prefix_ + " " + std::to_string(round_) + ": " + text;
    c.request.messages.push_back(std::move(m));
    return c;
  }

  std::string input_;
  std::string prefix_;
  int rounds_;
  int round_ = 0;
};

std::string render_echo(const msg::ProgressEvent& e, strategy::NumberText) {
  const auto name = msg::strategy_event_name(e.data);
  if (name.strategy != "echo" || name.event != "echoed") return "";
  return "[" + e.agent + "] echoed round " + std::to_string(e.data.value("round", 0)) + ": " + e.text + "\n";
}

Result<driver::DrivenStrategy> setup_echo(const driver::StrategySetup& s) {
  const json& section = s.section;
  if (!section.is_object() || !section.contains("model") || !section["model"].is_string())
    return Error{"config", "echo.model: the echo strategy needs a model"};
  const json rounds = section.value("rounds", json(1));
  if (!rounds.is_number_integer() || rounds.get<int64_t>() < 1 || rounds.get<int64_t>() > 10)
    return Error{"config", "echo.rounds: expected an integer from 1 to 10, got " + rounds.dump()};
  driver::DrivenStrategy d;
  d.agent = "Echo";
  d.who = "the echo strategy";
  d.model = s.price(section["model"].get<std::string>());
  const std::string prefix = section.value("prefix", "round");
  const int n = rounds.get<int>();
  d.make = [prefix, n](const msg::TaskRequest& task, const driver::StateValues&) {
    return driver::make_task_driver<EchoDriver>(task.input, prefix, n);
  };
  return d;
}

void register_echo_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = "echo";
    info.help = "asks its model again with each answer (a test's strategy)";
    info.config_section = "echo";
    info.render = render_echo;
    info.events = {{"echoed", true, "one round's answer"}};
    Status s = register_strategy(std::move(info), setup_echo);
    ASSERT_TRUE(s.ok()) << s.error().message;
  });
}

// ------------------------------------------------------------ the test

constexpr const char* kScript = R"(
rules:
  - match: { model: echo-model, last_user: "round 1" }
    reply: { text: "一回目の川 🌊", usage: { input_tokens: 7, output_tokens: 5 } }
  - match: { model: echo-model, last_user: "round 2" }
    reply: { text: "二回目の石 🪨", usage: { input_tokens: 9, output_tokens: 6 } }
)";

class Events : public company::ProgressSink {
 public:
  void emit(const msg::ProgressEvent& e) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(e);
  }
  std::vector<msg::ProgressEvent> of(msg::EventKind kind) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<msg::ProgressEvent> out;
    for (const auto& e : events_)
      if (e.kind == kind) out.push_back(e);
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<msg::ProgressEvent> events_;
};

class RegisteredStrategyTest : public store::testing::TempDirTest {
 protected:
  void SetUp() override {
    store::testing::TempDirTest::SetUp();
    register_echo_once();
    auto script = mockllm::parse_mock_script(kScript, "registered_strategy_test");
    ASSERT_TRUE(script) << script.error().message;
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    port_ = *port;
  }

  Result<config::Config> config(const std::string& echo_section) {
    return config::parse_config("strategy: echo\nstore: " + file("kaisha.db") +
                                    "\nceo: { model: openai:ceo-model }\n"
                                    "providers:\n  openai: { base_url: http://127.0.0.1:" +
                                    std::to_string(port_) + "/v1, api_key: mock-key }\n" + echo_section,
                                "echo.yaml");
  }

  // A company of `strategy` on this test's config with `extra` YAML,
  // reporting to `progress`; null, the test failed, when it cannot start.
  std::unique_ptr<CompanyRuntime> start_company(const std::string& strategy, const std::string& extra = "",
                                                std::shared_ptr<company::ProgressSink> progress = nullptr) {
    auto c = config(extra);
    if (!c.ok()) {
      ADD_FAILURE() << c.error().message;
      return nullptr;
    }
    c->strategy = strategy;
    RuntimeOptions o;
    o.config = *c;
    o.progress = std::move(progress);
    auto rt = CompanyRuntime::start(std::move(o));
    if (!rt.ok()) {
      ADD_FAILURE() << rt.error().message;
      return nullptr;
    }
    return std::move(rt).value();
  }

  std::unique_ptr<mockllm::MockLlmServer> mock_;
  int port_ = 0;
};

TEST_F(RegisteredStrategyTest, ATaskRunsThroughTheRuntimeWithTheStrategysOwnEventsAndJournal) {
  auto c = config("echo:\n  model: openai:echo-model\n  rounds: 2\n  prefix: round\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  RuntimeOptions o;
  o.config = *c;
  auto events = std::make_shared<Events>();
  o.progress = events;
  auto rt = CompanyRuntime::start(std::move(o));
  ASSERT_TRUE(rt.ok()) << rt.error().message;
  msg::TaskResult r = (*rt)->run_task("川と石について 🌊");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "二回目の石 🪨");
  EXPECT_EQ(r.metadata.value("rounds", 0), 2);
  EXPECT_TRUE(r.metadata.contains("execution_time_ms")) << r.metadata.dump();
  EXPECT_EQ(r.tokens_in, 16);
  EXPECT_EQ(r.tokens_out, 11);
  const std::string task = r.task_id;
  const std::string session = (*rt)->session_id();
  rt->reset();

  // Its model was asked twice, over HTTP, with the strategy's prompts.
  const auto requests = mock_->request_log();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].value("model", ""), "echo-model");
  EXPECT_NE(requests[1].value("last_message", "").find("round 2: 一回目の川 🌊"), std::string::npos)
      << requests[1].dump();

  // Its events are one kind, named by the strategy, rendered by its entry.
  const auto mine = events->of(msg::EventKind::strategy);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].data.value("strategy", ""), "echo");
  EXPECT_EQ(mine[0].data.value("event", ""), "echoed");
  EXPECT_EQ(mine[0].agent, "Echo");
  EXPECT_EQ(strategy::render_event(mine[1], nullptr), "[Echo] echoed round 2: 二回目の石 🪨\n");

  // The journal holds the task, its two model calls and the journaled events.
  auto j = store::JournalStore::open_read_only(file("kaisha.db"));
  ASSERT_TRUE(j.ok()) << j.error().message;
  auto t = (*j)->get_task(task);
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->status, "done");
  EXPECT_EQ((*t)->strategy, "echo");
  EXPECT_EQ((*t)->session_id, session);
  auto steps = (*j)->task_steps(task);
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  int echoed = 0;
  for (const auto& s : *steps) echoed += s.kind == "note" && msg::strategy_event_name(s.payload).event == "echoed";
  EXPECT_EQ(echoed, 2);
}

TEST_F(RegisteredStrategyTest, ItsConfigSectionIsItsOwnToCheck) {
  auto c = config("echo:\n  model: openai:echo-model\n  rounds: 0\n");
  ASSERT_TRUE(c.ok()) << c.error().message;  // the loader hands the section on
  RuntimeOptions o;
  o.config = *c;
  auto rt = CompanyRuntime::start(std::move(o));
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.error().message, "echo.rounds: expected an integer from 1 to 10, got 0");
}

TEST_F(RegisteredStrategyTest, ANameAlreadyTakenIsRefused) {
  strategy::StrategyInfo info;
  info.name = "pyramid";
  Status s = register_strategy(std::move(info), setup_echo);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "a strategy named 'pyramid' is already registered");
  strategy::StrategyInfo bad;
  bad.name = "Echo Two";
  EXPECT_FALSE(register_strategy(std::move(bad), setup_echo).ok());
}

}  // namespace
}  // namespace kaisha::actors::registered_strategy_test

namespace kaisha::actors::registered_strategy_test {
namespace {

// "tally": its section is read by its own entry (read_settings) with the
// YAML reader every kaisha config uses, so a wrong value is refused when the
// file is loaded, naming the file, the line and the key; its setup gets the
// typed settings.
struct TallySettings {
  std::string model;
  int64_t rounds = 1;
};

Result<std::any> read_tally(const YAML::Node& n, const config::YamlReader& r) {
  TallySettings t;
  if (!config::YamlReader::present(n)) return std::any(t);
  if (Status s = r.expect_section(n, "tally", {"model", "rounds"}); !s) return s.error();
  if (Status s = r.optional_string(n, "tally", "model", t.model); !s) return s.error();
  if (Status s = r.optional_int(n, "tally", "rounds", t.rounds, 1, 10); !s) return s.error();
  return std::any(t);
}

Result<driver::DrivenStrategy> setup_tally(const driver::StrategySetup& s) {
  const auto* t = std::any_cast<TallySettings>(&s.settings);
  if (!t) return Error{"config", "tally: no settings were read"};
  driver::DrivenStrategy d;
  d.agent = "Tally";
  d.model = s.price(t->model);
  const int n = static_cast<int>(t->rounds);
  d.make = [n](const msg::TaskRequest& task, const driver::StateValues&) {
    return driver::make_task_driver<EchoDriver>(task.input, "round", n);
  };
  return d;
}

void register_tally_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = "tally";
    info.help = "echo, with a section its entry reads (a test's strategy)";
    info.config_section = "tally";
    info.read_settings = read_tally;
    Status s = register_strategy(std::move(info), setup_tally);
    ASSERT_TRUE(s.ok()) << s.error().message;
  });
}

TEST_F(RegisteredStrategyTest, ItsOwnSectionReaderRefusesABadValueWithFileLineAndKey) {
  register_tally_once();
  auto bad = config("tally:\n  model: openai:echo-model\n  rounds: 0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "echo.yaml:8: tally.rounds: expected an integer >= 1, got 0");
  auto typo = config("tally:\n  modle: openai:echo-model\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().message, "echo.yaml:7: unknown key 'modle' in tally (did you mean 'model'?)");
}

TEST_F(RegisteredStrategyTest, ItsSetupGetsTheSettingsItsEntryRead) {
  register_tally_once();
  auto c = config("tally:\n  model: openai:echo-model\n  rounds: 1\n");
  ASSERT_TRUE(c.ok()) << c.error().message;
  c->strategy = "tally";
  RuntimeOptions o;
  o.config = *c;
  auto rt = CompanyRuntime::start(std::move(o));
  ASSERT_TRUE(rt.ok()) << rt.error().message;
  msg::TaskResult r = (*rt)->run_task("川");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "一回目の川 🌊");
  EXPECT_EQ(r.metadata.value("rounds", 0), 1);
}

}  // namespace
}  // namespace kaisha::actors::registered_strategy_test

namespace kaisha::actors::registered_strategy_test {
namespace {

// "counter": its driver runs a tool of its own (RunTool through the
// strategy's ToolSource) and keeps a count across tasks and sessions in its
// state (SaveState); each task starts from the state the actor gives it.
class LengthTool : public company::ToolSource {
 public:
  std::string origin() const override { return "counter"; }
  std::vector<llm::ToolSpec> specs() const override { return {}; }
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override {
    if (name != "length") return done(company::ToolResult::error("no tool " + name));
    // Another thread answers, as a real source's would.
    std::thread([args, task = ctx.task_id, done = std::move(done)] {
      done(company::ToolResult::success(task, json{{"length", args.value("text", "").size()}}));
    }).detach();
  }
};

class CounterDriver {
 public:
  CounterDriver(std::string input, int64_t count) : input_(std::move(input)), count_(count) {}

  driver::Effects start() {
    driver::RunTool t;
    t.id = 1;
    t.tool = "length";
    t.arguments = json{{"text", input_}}.dump();
    return {t};
  }

  driver::Effects on(const driver::Outcome& o) {
    const auto* ran = std::get_if<driver::ToolRan>(&o);
    if (!ran) return {};
    if (!ran->result.ok) return {driver::Finish{false, "the tool failed: " + ran->result.message}};
    const json& r = ran->result.output;
    const int64_t count = count_ + 1;
    return {
        driver::SaveState{"count", json(count), "the task's count"},
        driver::Finish{true, "task " + std::to_string(count) + ": " + std::to_string(r.value("length", 0)) + " bytes"}};
  }

  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  std::string input_;
  int64_t count_;
};

Result<driver::DrivenStrategy> setup_counter(const driver::StrategySetup&) {
  driver::DrivenStrategy d;
  d.agent = "Counter";
  d.state = "counter";
  d.tools = std::make_shared<LengthTool>();
  d.make = [](const msg::TaskRequest& task, const driver::StateValues& state) {
    auto it = state.find("count");
    const int64_t count = it != state.end() && it->second.is_number_integer() ? it->second.get<int64_t>() : 0;
    return driver::make_task_driver<CounterDriver>(task.input, count);
  };
  return d;
}

void register_counter_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = "counter";
    info.help = "counts its tasks in its state, measuring each with a tool (a test's strategy)";
    Status s = register_strategy(std::move(info), setup_counter);
    ASSERT_TRUE(s.ok()) << s.error().message;
  });
}

TEST_F(RegisteredStrategyTest, ItsToolsRunAndItsStateCarriesOverToLaterTasksAndSessions) {
  register_counter_once();
  auto c = config("");
  ASSERT_TRUE(c.ok()) << c.error().message;
  c->strategy = "counter";
  for (int session = 0; session < 2; ++session) {
    RuntimeOptions o;
    o.config = *c;
    auto rt = CompanyRuntime::start(std::move(o));
    ASSERT_TRUE(rt.ok()) << rt.error().message;
    msg::TaskResult a = (*rt)->run_task("川");  // 3 bytes of UTF-8
    ASSERT_TRUE(a.ok) << a.error;
    EXPECT_EQ(a.answer, "task " + std::to_string(2 * session + 1) + ": 3 bytes");
    msg::TaskResult b = (*rt)->run_task("stone 🪨");
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(b.answer, "task " + std::to_string(2 * session + 2) + ": 10 bytes");
  }
  auto j = store::JournalStore::open_read_only(file("kaisha.db"));
  ASSERT_TRUE(j.ok()) << j.error().message;
  auto state = (*j)->state("counter");
  ASSERT_TRUE(state.ok()) << state.error().message;
  ASSERT_EQ(state->size(), 1u);
  EXPECT_EQ((*state)[0].value, json(4));
}

// What the company's embedder wraps its tool sources with (`kaisha editor`'s
// permission) wraps the strategy's too: here a wrapper that refuses.
class RefusingWrapper : public company::ToolSource {
 public:
  explicit RefusingWrapper(std::shared_ptr<company::ToolSource> inner) : inner_(std::move(inner)) {}
  std::string origin() const override { return inner_->origin(); }
  std::vector<llm::ToolSpec> specs() const override { return inner_->specs(); }
  void call(const std::string& name, const json&, const company::ToolCallContext&,
            std::function<void(company::ToolResult)> done) override {
    done(company::ToolResult::error(name + " did not run: the user refused"));
  }

 private:
  std::shared_ptr<company::ToolSource> inner_;
};

TEST_F(RegisteredStrategyTest, ItsToolSourceIsWrappedAsTheCompanysOwnAre) {
  register_counter_once();
  auto c = config("");
  ASSERT_TRUE(c.ok()) << c.error().message;
  c->strategy = "counter";
  RuntimeOptions o;
  o.config = *c;
  auto wrapped = std::make_shared<std::vector<std::string>>();
  o.wrap_tool_source = [wrapped](std::shared_ptr<company::ToolSource> inner) -> std::shared_ptr<company::ToolSource> {
    wrapped->push_back(inner->origin());
    return std::make_shared<RefusingWrapper>(std::move(inner));
  };
  auto rt = CompanyRuntime::start(std::move(o));
  ASSERT_TRUE(rt.ok()) << rt.error().message;
  msg::TaskResult r = (*rt)->run_task("川");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "the tool failed: length did not run: the user refused");
  EXPECT_EQ(std::count(wrapped->begin(), wrapped->end(), "counter"), 1) << "the strategy's source, once";
}

}  // namespace
}  // namespace kaisha::actors::registered_strategy_test

namespace kaisha::actors::registered_strategy_test {
namespace {

// "judged": its driver asks its environment (DrivenStrategy::environment) to
// judge the task's input and finishes with the verdict. The environment is
// the test's: it records the thread each judgment ran on, throws on "boom",
// and on "block" waits until the test lets it go.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  bool released = false;
  std::vector<std::thread::id> threads;
};

Gate& gate() {
  static Gate g;
  return g;
}

class ScriptedJudge : public driver::Environment {
 public:
  std::string name() const override { return "judge"; }
  company::ToolResult judge(const json& request) override {
    const std::string answer = request.value("answer", "");
    Gate& g = gate();
    std::unique_lock<std::mutex> lock(g.mu);
    g.threads.push_back(std::this_thread::get_id());
    if (answer == "boom") throw std::runtime_error("the checker crashed 💥");
    if (answer == "block") {
      g.entered = true;
      g.cv.notify_all();
      g.cv.wait(lock, [&g] { return g.released; });
    }
    return company::ToolResult::success("right: " + answer, json{{"success", true}});
  }
};

class JudgedDriver {
 public:
  explicit JudgedDriver(std::string input) : input_(std::move(input)) {}

  driver::Effects start() {
    driver::RunTool t;
    t.id = 1;
    t.tool = "judge";
    // "raw:" sends the rest as the request's text, JSON or not.
    t.arguments = input_.rfind("raw:", 0) == 0 ? input_.substr(4) : json{{"answer", input_}}.dump();
    return {t};
  }

  driver::Effects on(const driver::Outcome& o) {
    const auto* ran = std::get_if<driver::ToolRan>(&o);
    if (!ran) return {};
    if (!ran->result.ok) return {driver::Finish{false, "not judged: " + ran->result.message}};
    return {driver::Finish{true, ran->result.message}};
  }

  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  std::string input_;
};

void register_judged_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = "judged";
    info.help = "has its environment judge the task's input (a test's strategy)";
    Status s = register_strategy(std::move(info), [](const driver::StrategySetup&) -> Result<driver::DrivenStrategy> {
      driver::DrivenStrategy d;
      d.agent = "Judged";
      d.environment = std::make_shared<ScriptedJudge>();
      d.make = [](const msg::TaskRequest& task, const driver::StateValues&) {
        return driver::make_task_driver<JudgedDriver>(task.input);
      };
      return d;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
  });
}

TEST_F(RegisteredStrategyTest, ItsEnvironmentJudgesOnAThreadOfItsOwnAndAFailureIsAnAnswer) {
  register_judged_once();
  auto rt = start_company("judged");
  ASSERT_TRUE(rt);
  {
    std::lock_guard<std::mutex> lock(gate().mu);
    gate().threads.clear();
  }

  msg::TaskResult right = rt->run_task("東京 🗼");
  ASSERT_TRUE(right.ok) << right.error;
  EXPECT_EQ(right.answer, "right: 東京 🗼");

  // An exception in the environment is its answer, and it goes on judging.
  msg::TaskResult crashed = rt->run_task("boom");
  EXPECT_FALSE(crashed.ok);
  EXPECT_EQ(crashed.error, "not judged: judge failed: the checker crashed 💥");
  msg::TaskResult not_json = rt->run_task("raw:{\"answer\": ");
  EXPECT_FALSE(not_json.ok);
  EXPECT_EQ(not_json.error, "not judged: judge: the request is not JSON");
  msg::TaskResult again = rt->run_task("大阪");
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(again.answer, "right: 大阪");

  std::lock_guard<std::mutex> lock(gate().mu);
  ASSERT_EQ(gate().threads.size(), 3u);  // the text that was not JSON never reached it
  for (const std::thread::id& t : gate().threads) {
    EXPECT_EQ(t, gate().threads.front()) << "one thread, the environment actor's";
    EXPECT_NE(t, std::this_thread::get_id());
  }
}

TEST_F(RegisteredStrategyTest, ATaskIsCanceledWhileItsEnvironmentBlocks) {
  register_judged_once();
  auto rt = start_company("judged");
  ASSERT_TRUE(rt);
  {
    std::lock_guard<std::mutex> lock(gate().mu);
    gate().entered = false;
    gate().released = false;
  }
  std::promise<msg::TaskResult> blocked;
  std::thread runner([&] { blocked.set_value(rt->run_task("block", "task-blocked")); });
  {
    std::unique_lock<std::mutex> lock(gate().mu);
    gate().cv.wait(lock, [] { return gate().entered; });
  }
  // The environment is busy; the strategy actor is not.
  EXPECT_TRUE(rt->cancel("task-blocked", "the user stopped it"));
  msg::TaskResult r = blocked.get_future().get();
  runner.join();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "the user stopped it");
  {
    std::lock_guard<std::mutex> lock(gate().mu);
    gate().released = true;
  }
  gate().cv.notify_all();
  // The late verdict belongs to no task; the next task is judged as usual.
  msg::TaskResult next = rt->run_task("名古屋");
  ASSERT_TRUE(next.ok) << next.error;
  EXPECT_EQ(next.answer, "right: 名古屋");
}

// "flooded": asks its environment 65 judgments at once. While the first
// blocks, 63 wait in the environment actor's mailbox and the 65th is refused
// at once (at most 64 wait); once the first is let go, the rest are judged.
std::atomic<bool> flood_refused{false};

class FloodDriver {
 public:
  static constexpr int kAsked = 65;
  driver::Effects start() {
    driver::Effects out;
    for (int i = 1; i <= kAsked; ++i) {
      driver::RunTool t;
      t.id = static_cast<driver::CallId>(i);
      t.tool = "judge";
      t.arguments = json{{"answer", "block"}}.dump();
      out.push_back(t);
    }
    return out;
  }
  driver::Effects on(const driver::Outcome& o) {
    const auto* ran = std::get_if<driver::ToolRan>(&o);
    if (!ran) return {};
    if (ran->result.ok) {
      ++judged_;
    } else {
      refusals_.push_back(ran->result.message);
      flood_refused = true;
    }
    if (judged_ + static_cast<int>(refusals_.size()) < kAsked) return {};
    return {driver::Finish{true, std::to_string(judged_) + " judged; refused: " +
                                     (refusals_.empty() ? std::string("none") : refusals_.front())}};
  }
  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  int judged_ = 0;
  std::vector<std::string> refusals_;
};

TEST_F(RegisteredStrategyTest, AtMost64JudgmentsWaitForTheEnvironmentAndOneMoreIsRefusedAtOnce) {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = "flooded";
    info.help = "asks its environment 65 judgments at once (a test's strategy)";
    Status s = register_strategy(std::move(info), [](const driver::StrategySetup&) -> Result<driver::DrivenStrategy> {
      driver::DrivenStrategy d;
      d.agent = "Flooded";
      d.environment = std::make_shared<ScriptedJudge>();
      d.make = [](const msg::TaskRequest&, const driver::StateValues&) {
        return driver::make_task_driver<FloodDriver>();
      };
      return d;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
  });
  auto rt = start_company("flooded");
  ASSERT_TRUE(rt);
  {
    std::lock_guard<std::mutex> lock(gate().mu);
    gate().entered = false;
    gate().released = false;
  }
  flood_refused = false;
  std::promise<msg::TaskResult> done;
  std::thread runner([&] { done.set_value(rt->run_task("flood")); });
  // The first judgment blocks until the refusal has reached the driver.
  for (int i = 0; i < 3000 && !flood_refused; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(flood_refused.load()) << "the 65th judgment was refused while the others waited";
  {
    std::lock_guard<std::mutex> lock(gate().mu);
    gate().released = true;
  }
  gate().cv.notify_all();
  msg::TaskResult r = done.get_future().get();
  runner.join();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.answer, "64 judged; refused: judge: not asked: 64 requests are already waiting for the environment");
}

}  // namespace
}  // namespace kaisha::actors::registered_strategy_test

namespace kaisha::actors::registered_strategy_test {
namespace {

// "flaky": its driver runs a tool of its own that always fails with a
// transient error. A strategy's tools go through the company's circuit
// breakers as the CEO's do: after `breaker_failures` failures in a row the
// next call is refused at once, without running the tool, and the change is
// reported as a breaker event.
std::atomic<int> flaky_runs{0};

class FlakyTool : public company::ToolSource {
 public:
  std::string origin() const override { return "flaky"; }
  std::vector<llm::ToolSpec> specs() const override { return {}; }
  void call(const std::string& name, const json&, const company::ToolCallContext&,
            std::function<void(company::ToolResult)> done) override {
    ++flaky_runs;
    done(company::with_error_class(company::ToolResult::error(name + ": the upstream service is down 🔌"),
                                   company::ToolErrorClass::transient));
  }
};

class FlakyDriver {
 public:
  driver::Effects start() {
    driver::RunTool t;
    t.id = 1;
    t.tool = "fetch";
    t.arguments = "{}";
    return {t};
  }
  driver::Effects on(const driver::Outcome& o) {
    const auto* ran = std::get_if<driver::ToolRan>(&o);
    if (!ran) return {};
    return {driver::Finish{ran->result.ok, ran->result.message}};
  }
  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }
};

void register_flaky_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    strategy::StrategyInfo info;
    info.name = "flaky";
    info.help = "runs a tool of its own that always fails (a test's strategy)";
    Status s = register_strategy(std::move(info), [](const driver::StrategySetup&) -> Result<driver::DrivenStrategy> {
      driver::DrivenStrategy d;
      d.agent = "Flaky";
      d.tools = std::make_shared<FlakyTool>();
      d.make = [](const msg::TaskRequest&, const driver::StateValues&) {
        return driver::make_task_driver<FlakyDriver>();
      };
      return d;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
  });
}

TEST_F(RegisteredStrategyTest, ItsFailingToolOpensTheCircuitBreakerAndTheNextCallIsRefusedUnrun) {
  register_flaky_once();
  auto events = std::make_shared<Events>();
  auto rt = start_company(
      "flaky", "tools:\n  failures: { max_attempts: 1, breaker_failures: 2, breaker_cooldown_ms: 600000 }\n", events);
  ASSERT_TRUE(rt);
  flaky_runs = 0;
  for (int i = 0; i < 2; ++i) {
    msg::TaskResult r = rt->run_task("fetch it");
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, "fetch: the upstream service is down 🔌");
  }
  EXPECT_EQ(flaky_runs.load(), 2);
  msg::TaskResult refused = rt->run_task("fetch it");
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("Tool `fetch` was not run: it failed 2 times in a row and is paused (circuit "
                               "breaker open)"),
            std::string::npos)
      << refused.error;
  EXPECT_EQ(flaky_runs.load(), 2) << "the open breaker answered without running the tool";
  auto breakers = events->of(msg::EventKind::breaker);
  ASSERT_FALSE(breakers.empty());
  EXPECT_NE(breakers.front().text.find("circuit breaker open"), std::string::npos) << breakers.front().text;
}

}  // namespace
}  // namespace kaisha::actors::registered_strategy_test
