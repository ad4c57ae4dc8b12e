// CompanyRuntime in-process with a stub ChatClient (scripted answers,
// delivered from the stub's own thread after a hold, as a real provider
// would): a CEO tool-call sequence, direct tool calls, and the ledger under
// 1,000 concurrent AskAgent calls — exactly the affordable ones succeed, the
// rest get the HASHIRU refusal, and the expense never overshoots.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "runtime/company/chat_client.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/pyramid/entry/pyramid_settings.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// ------------------------------------------------------------------ helpers

class TempDir {
 public:
  TempDir() {
    // tmpfs when there is one: the journal commits every step, and 1,000
    // concurrent asks write thousands of rows.
    fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string tmpl = (base / "kaisha-actors-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

int turn_of(const llm::ChatRequest& r) {
  int n = 0;
  for (const auto& m : r.messages) n += m.role == llm::Role::assistant;
  return n;
}

llm::ChatResponse text_reply(std::string text, int64_t in = 10, int64_t out = 5) {
  llm::ChatResponse r;
  r.message.role = llm::Role::assistant;
  r.message.content = std::move(text);
  r.usage = {in, out, false};
  r.finish_reason = "stop";
  return r;
}

llm::ChatResponse tool_reply(std::vector<std::pair<std::string, json>> calls) {
  llm::ChatResponse r = text_reply("");
  r.finish_reason = "tool_calls";
  int i = 0;
  for (auto& [name, args] : calls) r.message.tool_calls.push_back({"call_" + std::to_string(i++), name, args.dump()});
  return r;
}

// Answers every chat() from its own thread. Each answer waits at least
// `hold` after its request arrived, and — while `release_at` is above zero —
// until that many requests are waiting at once (or `max_wait` passed), so
// that calls genuinely overlap.
class StubBackend : public company::ChatClient {
 public:
  using Script = std::function<llm::ChatResponse(const std::string& model_ref, const llm::ChatRequest&)>;

  explicit StubBackend(Script script) : script_(std::move(script)), worker_([this] { loop(); }) {}
  ~StubBackend() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  std::chrono::milliseconds hold{20};
  std::atomic<int> release_at{0};
  std::string gated_ref = "stub:paid";
  std::chrono::milliseconds max_wait{5000};

  Status check_model(const std::string& model_ref) const override {
    if (model_ref.rfind("stub:", 0) != 0) return Error{"config", "unknown provider in '" + model_ref + "'"};
    return Status::Ok();
  }

  void chat(const std::string& model_ref, llm::ChatRequest request, company::ChatHandlers h) override {
    {
      std::lock_guard lock(mu_);
      pending_.push_back({model_ref, std::move(request), std::move(h), std::chrono::steady_clock::now()});
      ++calls_[model_ref];
      max_pending_ = std::max(max_pending_, pending_.size());
    }
    cv_.notify_all();
  }

  int calls(const std::string& model_ref) {
    std::lock_guard lock(mu_);
    return calls_[model_ref];
  }
  size_t max_pending() {
    std::lock_guard lock(mu_);
    return max_pending_;
  }

 private:
  struct Pending {
    std::string model_ref;
    llm::ChatRequest request;
    company::ChatHandlers handlers;
    std::chrono::steady_clock::time_point arrived;
  };

  void loop() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, 5ms);
      const auto now = std::chrono::steady_clock::now();
      // The gate applies to `gated_ref` only (the CEO's calls always pass).
      const int gate = release_at.load();
      size_t gated = 0;
      bool overdue = false;
      for (auto& p : pending_) {
        if (p.model_ref != gated_ref) continue;
        ++gated;
        overdue = overdue || now - p.arrived > max_wait;
      }
      const bool gate_open = gate <= 0 || gated >= static_cast<size_t>(gate) || overdue;
      if (gate > 0 && gate_open) release_at = 0;  // opened once, stays open
      std::vector<Pending> due;
      for (auto it = pending_.begin(); it != pending_.end();) {
        if ((gate_open || it->model_ref != gated_ref) && now - it->arrived >= hold) {
          due.push_back(std::move(*it));
          it = pending_.erase(it);
        } else {
          ++it;
        }
      }
      lock.unlock();
      for (auto& p : due) p.handlers.on_done(script_(p.model_ref, p.request));
      lock.lock();
    }
    for (auto& p : pending_) p.handlers.on_done(Error{"cancelled", "stub backend stopped"});
  }

  Script script_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> pending_;
  std::map<std::string, int> calls_;
  size_t max_pending_ = 0;
  bool stop_ = false;
  std::thread worker_;
};

class CapturingSink : public company::ProgressSink {
 public:
  void emit(const msg::ProgressEvent& e) override {
    std::lock_guard lock(mu_);
    events_.push_back(e);
  }
  std::vector<msg::ProgressEvent> of(const std::string& kind) {
    std::lock_guard lock(mu_);
    std::vector<msg::ProgressEvent> v;
    for (auto& e : events_)
      if (msg::event_kind_name(e.kind) == kind) v.push_back(e);
    return v;
  }

 private:
  std::mutex mu_;
  std::vector<msg::ProgressEvent> events_;
};

// "paid": a cloud model at $1,000 per 1M tokens each way, i.e. $0.001 a
// token, so every hold is a whole number of micro-dollars.
const char* kCostTable = R"(
models:
  helper:
    model_ref: stub:helper
    type: local
    create_resource_cost: 25
    invoke_resource_cost: 10
    description: "A local helper"
  paid:
    model_ref: stub:paid
    type: cloud
    invoke_expense_cost: 1000
    output_expense_cost: 1000
    description: "An expensive API model"
)";

class CompanyRuntimeTest : public ::testing::Test {
 protected:
  config::Config make_config(double expense_total) {
    config::Config c;
    c.store_path = dir_.file("kaisha.db");
    c.cost_table_file = dir_.write("costs.yaml", kCostTable);
    c.ceo.model = "stub:ceo";  // not in the cost table: the CEO's calls are free
    c.employee.max_output_tokens = kMaxOut;
    c.budget.resource_total = 100;
    c.budget.expense_total = expense_total;
    return c;
  }
  std::unique_ptr<CompanyRuntime> start(config::Config c) {
    RuntimeOptions o;
    o.config = std::move(c);
    o.chat = backend_;
    o.progress = sink_;
    o.scheduler_threads = 4;
    auto rt = CompanyRuntime::start(std::move(o));
    if (!rt.ok()) ADD_FAILURE() << rt.error().message;
    return rt.ok() ? std::move(rt).value() : nullptr;
  }

  static constexpr int64_t kMaxOut = 10;
  TempDir dir_;
  std::shared_ptr<StubBackend> backend_;
  std::shared_ptr<CapturingSink> sink_ = std::make_shared<CapturingSink>();
};

// Employees echo their prompt; the CEO follows `ceo`.
StubBackend::Script script_with(std::function<llm::ChatResponse(const llm::ChatRequest&)> ceo, int64_t employee_in = 10,
                                int64_t employee_out = 5) {
  return [=](const std::string& ref, const llm::ChatRequest& req) {
    if (ref == "stub:ceo") return ceo(req);
    return text_reply(ref + " says: " + req.messages.back().content, employee_in, employee_out);
  };
}

// ------------------------------------------------------------------ tests

TEST_F(CompanyRuntimeTest, CeoHiresAsksAndAnswersThroughToolCalls) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest& req) {
    switch (turn_of(req)) {
      case 0:
        return tool_reply({{"GetBudget", json::object()},
                           {"AgentCreator",
                            {{"agent_name", "Helper"},
                             {"base_model", "helper"},
                             {"system_prompt", "You help."},
                             {"description", "Helps"}}}});
      case 1:
        return tool_reply({{"AskAgent", {{"agent_name", "Helper"}, {"prompt", "What is 2+2?"}}}});
      default:
        return text_reply("Final: " + req.messages.back().content);
    }
  }));
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  msg::TaskResult r = rt->run_task("Add two and two.");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.answer.find("stub:helper says: What is 2+2?"), std::string::npos) << r.answer;
  EXPECT_EQ(backend_->calls("stub:ceo"), 3);
  EXPECT_EQ(backend_->calls("stub:helper"), 1);
  EXPECT_EQ(sink_->of("hire").size(), 1u);
  EXPECT_EQ(sink_->of("answer").size(), 1u);
  EXPECT_EQ(sink_->of("final").size(), 1u);
  json b = rt->budget();
  EXPECT_DOUBLE_EQ(b["current_resource_usage"].get<double>(), 25);
  EXPECT_DOUBLE_EQ(b["reserved_resource"].get<double>(), 0);  // the ask's hold was released
  EXPECT_DOUBLE_EQ(b["internal_invoke_cost"].get<double>(), 10);

  // The journal has the task, its steps and the hire.
  const std::string session = rt->session_id();
  rt.reset();
  auto st = store::JournalStore::open_read_only(dir_.file("kaisha.db"));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto tasks = (*st)->tasks(session);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "done");
  auto agents = (*st)->active_agents(session);
  ASSERT_TRUE(agents.ok());
  ASSERT_EQ(agents->size(), 1u);
  EXPECT_EQ((*agents)[0].name, "Helper");
}

// A Gemini-style reply puts dependent calls together (hashiru.md §9 item 7):
// [AgentCreator(X), AskAgent(X)] hires X before asking it, while the asks of
// two different agents still overlap (the stub holds the helper's answers
// until two of them are waiting at once).
// Durations are measured on the steady clock: the system clock set an hour
// back in the middle of a task leaves its wall time and the ask's latency
// what they really were.
TEST_F(CompanyRuntimeTest, AWallClockJumpDuringATaskLeavesItsDurationsTrue) {
  std::atomic<int64_t> shifted{0};
  backend_ = std::make_shared<StubBackend>(script_with([&](const llm::ChatRequest& req) {
    switch (turn_of(req)) {
      case 0:
        return tool_reply({{"AgentCreator",
                            {{"agent_name", "Helper"},
                             {"base_model", "helper"},
                             {"system_prompt", "You help."},
                             {"description", "Helps"}}}});
      case 1:
        shift_wall_clock_for_testing(-3600 * 1000);
        shifted += -3600 * 1000;
        return tool_reply({{"AskAgent", {{"agent_name", "Helper"}, {"prompt", "What is 2+2?"}}}});
      default:
        return text_reply("Final: " + req.messages.back().content);
    }
  }));
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  msg::TaskResult r = rt->run_task("Add two and two.");
  shift_wall_clock_for_testing(-shifted.load());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_NE(shifted.load(), 0) << "the script never moved the clock";
  EXPECT_GE(r.wall_ms, 0);
  EXPECT_LT(r.wall_ms, 600 * 1000) << "the task's wall time followed the system clock";
}

TEST_F(CompanyRuntimeTest, CallsOfOneReplyNamingTheSameAgentRunInReplyOrder) {
  auto tool_messages = std::make_shared<std::vector<std::string>>();
  backend_ = std::make_shared<StubBackend>(script_with([tool_messages](const llm::ChatRequest& req) {
    auto create = [](const std::string& n) {
      return std::pair<std::string, json>{
          "AgentCreator",
          {{"agent_name", n}, {"base_model", "helper"}, {"system_prompt", "You help."}, {"description", "Helps"}}};
    };
    auto ask = [](const std::string& n) {
      return std::pair<std::string, json>{"AskAgent", {{"agent_name", n}, {"prompt", "Hello " + n}}};
    };
    if (turn_of(req) == 0) return tool_reply({create("X"), ask("X"), create("Y"), ask("Y")});
    for (const auto& m : req.messages)
      if (m.role == llm::Role::tool) tool_messages->push_back(m.tool_call_id + " " + m.content);
    return text_reply("done");
  }));
  backend_->gated_ref = "stub:helper";
  backend_->release_at = 2;
  backend_->max_wait = std::chrono::milliseconds(60000);
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  msg::TaskResult r = rt->run_task("Hire two helpers and greet them.");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(tool_messages->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const std::string& m = (*tool_messages)[static_cast<size_t>(i)];
    EXPECT_EQ(m.rfind("call_" + std::to_string(i) + " ", 0), 0u) << "results in call order: " << m;
    EXPECT_NE(m.find("\"status\":\"success\""), std::string::npos) << m;
  }
  EXPECT_NE((*tool_messages)[1].find("stub:helper says: Hello X"), std::string::npos) << (*tool_messages)[1];
  EXPECT_NE((*tool_messages)[3].find("stub:helper says: Hello Y"), std::string::npos) << (*tool_messages)[3];
  EXPECT_GE(backend_->max_pending(), 2u) << "the asks of X and Y did not overlap";
}

TEST_F(CompanyRuntimeTest, AnAskBeforeTheHireInOneReplyFailsAsInReplyOrder) {
  auto tool_messages = std::make_shared<std::vector<std::string>>();
  backend_ = std::make_shared<StubBackend>(script_with([tool_messages](const llm::ChatRequest& req) {
    if (turn_of(req) == 0)
      return tool_reply({{"AskAgent", {{"agent_name", "X"}, {"prompt", "Hi"}}},
                         {"AgentCreator",
                          {{"agent_name", "X"},
                           {"base_model", "helper"},
                           {"system_prompt", "You help."},
                           {"description", "Helps"}}}});
    for (const auto& m : req.messages)
      if (m.role == llm::Role::tool) tool_messages->push_back(m.content);
    return text_reply("done");
  }));
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  msg::TaskResult r = rt->run_task("Ask first, hire second.");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(tool_messages->size(), 2u);
  EXPECT_NE((*tool_messages)[0].find("Agent X does not exists"), std::string::npos) << (*tool_messages)[0];
  EXPECT_NE((*tool_messages)[1].find("\"status\":\"success\""), std::string::npos) << (*tool_messages)[1];
  EXPECT_EQ(backend_->calls("stub:helper"), 0);
}

TEST_F(CompanyRuntimeTest, AsyncToolCallsFromOneThreadEachGetTheirOwnAnswer) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) { return text_reply("ok"); }));
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  json hired = rt->call_tool(
      "AgentCreator",
      {{"agent_name", "Helper"}, {"base_model", "helper"}, {"system_prompt", "You help."}, {"description", "Helps"}});
  ASSERT_EQ(hired["status"], "success") << hired;

  constexpr int kCalls = 50;
  std::mutex mu;
  std::condition_variable cv;
  std::map<int, json> results;
  auto collect = [&](int i) {
    return [&, i](json r) {
      std::lock_guard lock(mu);
      results[i] = std::move(r);
      cv.notify_one();
    };
  };
  for (int i = 0; i < kCalls; ++i)
    rt->call_tool_async("AskAgent", {{"agent_name", "Helper"}, {"prompt", "p" + std::to_string(i)}}, collect(i));
  rt->call_tool_async("AskAgent", {{"agent_name", "Nobody"}, {"prompt", "x"}}, collect(kCalls));
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return results.size() == kCalls + 1; }));
  // Each ask holds 10 of the 75 points left while it runs, so some of the 50
  // are refused by the ledger; every answer must be the one to its own prompt.
  int answered = 0;
  for (int i = 0; i < kCalls; ++i) {
    if (results[i]["status"] == "success") {
      ++answered;
      EXPECT_EQ(results[i]["output"], "stub:helper says: p" + std::to_string(i));
    } else {
      EXPECT_TRUE(results[i]["message"].get<std::string>().starts_with("Do not have enough resource budget"))
          << results[i];
    }
  }
  EXPECT_GE(answered, 7);
  EXPECT_EQ(results[kCalls]["status"], "error");
  EXPECT_EQ(results[kCalls]["message"], "Agent Nobody does not exists");
}

TEST_F(CompanyRuntimeTest, CallsInFlightWhenTheRuntimeStopsEachGetAnError) {
  // The employee's model never answers while the runtime lives.
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) { return text_reply("ok"); }));
  backend_->hold = std::chrono::minutes(10);
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  json hired = rt->call_tool(
      "AgentCreator",
      {{"agent_name", "Helper"}, {"base_model", "helper"}, {"system_prompt", "You help."}, {"description", "Helps"}});
  ASSERT_EQ(hired["status"], "success") << hired;

  // Two blocking callers and two asynchronous calls, all waiting on the model.
  std::vector<json> blocking(2);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < blocking.size(); ++i)
    threads.emplace_back([&, i] {
      blocking[i] = rt->call_tool("AskAgent", {{"agent_name", "Helper"}, {"prompt", "b" + std::to_string(i)}});
    });
  std::mutex mu;
  std::vector<json> async_results;
  for (int i = 0; i < 2; ++i)
    rt->call_tool_async("AskAgent", {{"agent_name", "Helper"}, {"prompt", "a" + std::to_string(i)}}, [&](json r) {
      std::lock_guard lock(mu);
      async_results.push_back(std::move(r));
    });
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (backend_->calls("stub:helper") < 4 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(backend_->calls("stub:helper"), 4);

  rt.reset();                        // stops the runtime with all four asks in flight
  for (auto& t : threads) t.join();  // a blocked caller must come back
  for (const json& r : blocking) {
    EXPECT_EQ(r["status"], "error") << r;
    EXPECT_FALSE(r["message"].get<std::string>().empty()) << r;
  }
  // Every callback ran exactly once, before the runtime was gone.
  std::lock_guard lock(mu);
  ASSERT_EQ(async_results.size(), 2u);
  for (const json& r : async_results) {
    EXPECT_EQ(r["status"], "error") << r;
    EXPECT_FALSE(r["message"].get<std::string>().empty()) << r;
  }
}

TEST_F(CompanyRuntimeTest, DirectToolCallsHireAskFireAndRefuse) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) { return text_reply("ok"); }));
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  const json hire_args = {
      {"agent_name", "Helper"}, {"base_model", "helper"}, {"system_prompt", "You help."}, {"description", "Helps"}};
  json r = rt->call_tool("AgentCreator", hire_args);
  EXPECT_EQ(r["status"], "success") << r;
  EXPECT_DOUBLE_EQ(r["remaining_resource_budget"].get<double>(), 75);

  r = rt->call_tool("AgentCreator", hire_args);
  EXPECT_EQ(r["status"], "error");
  EXPECT_EQ(r["message"], "Agent Helper already exists");

  r = rt->call_tool("AskAgent", {{"agent_name", "Helper"}, {"prompt", "Hi"}});
  EXPECT_EQ(r["status"], "success") << r;
  EXPECT_EQ(r["output"], "stub:helper says: Hi");

  r = rt->call_tool("GetBudget", json::object());
  EXPECT_EQ(r["status"], "success");
  EXPECT_DOUBLE_EQ(r["output"]["current_resource_usage"].get<double>(), 25);

  r = rt->call_tool("GetAgents", json::object());
  EXPECT_TRUE(r["output"].contains("Helper")) << r;

  r = rt->call_tool("FireAgent", {{"agent_name", "Helper"}});
  EXPECT_EQ(r["status"], "success") << r;
  EXPECT_DOUBLE_EQ(rt->budget()["current_resource_usage"].get<double>(), 0);

  r = rt->call_tool("AskAgent", {{"agent_name", "Helper"}, {"prompt", "Still there?"}});
  EXPECT_EQ(r["message"], "Agent Helper does not exists");
  r = rt->call_tool("FireAgent", {{"agent_name", "Helper"}});
  EXPECT_EQ(r["message"], "Agent Helper does not exists");

  // Switches, toggled at run time.
  ASSERT_TRUE(rt->set_switch("cloud_agents", false).ok());
  r = rt->call_tool("AgentCreator",
                    {{"agent_name", "Pricey"}, {"base_model", "paid"}, {"system_prompt", "x"}, {"description", "x"}});
  EXPECT_EQ(r["message"], "Cloud invocation mode is disabled.");
  ASSERT_TRUE(rt->set_switch("agent_creation", false).ok());
  r = rt->call_tool("AgentCreator", hire_args);
  EXPECT_EQ(r["message"], "Agent creation mode is disabled.");
  EXPECT_FALSE(rt->set_switch("no_such_switch", true).ok());

  // The operator raises the expense budget.
  ASSERT_TRUE(rt->raise_budget("expense", 2).ok());
  EXPECT_DOUBLE_EQ(rt->budget()["total_expense_budget"].get<double>(), 3);
  EXPECT_FALSE(rt->raise_budget("expense", -1).ok());
  EXPECT_EQ(backend_->calls("stub:helper"), 1);
}

// What one AskAgent to "Worker" on "paid" holds at worst: the input bound
// (the bytes of system prompt and prompt plus framing) and max_output_tokens,
// at $0.001 a token.
constexpr const char* kWorkerPrompt = "You are a careful worker.";
constexpr const char* kAskPrompt = "Do one unit of work.";
int64_t worst_case_in() { return llm::ask_input_token_bound(kWorkerPrompt, kAskPrompt); }

// K asks fit the budget at worst case; the stub then bills exactly the worst
// case, so a settled call never frees room for another.
constexpr int kCalls = 1000;
constexpr int kAffordable = 100;

struct ConcurrencyFigures {
  double hold = 0, total = 0;
};

ConcurrencyFigures figures(int64_t max_out) {
  ConcurrencyFigures f;
  f.hold = double(worst_case_in() + max_out) * 0.001;
  f.total = kAffordable * f.hold + f.hold / 2;
  return f;
}

void hire_worker(CompanyRuntime& rt) {
  json r = rt.call_tool(
      "AgentCreator",
      {{"agent_name", "Worker"}, {"base_model", "paid"}, {"system_prompt", kWorkerPrompt}, {"description", "Works"}});
  ASSERT_EQ(r["status"], "success") << r;
}

TEST_F(CompanyRuntimeTest, ThousandConcurrentAsksInOneCeoTurnNeverOvershoot) {
  const auto f = figures(kMaxOut);
  backend_ = std::make_shared<StubBackend>(script_with(
      [](const llm::ChatRequest& req) {
        if (turn_of(req) > 0) return text_reply("All asked.");
        std::vector<std::pair<std::string, json>> calls;
        for (int i = 0; i < kCalls; ++i)
          calls.push_back({"AskAgent", {{"agent_name", "Worker"}, {"prompt", kAskPrompt}}});
        return tool_reply(std::move(calls));
      },
      worst_case_in(), kMaxOut));
  auto rt = start(make_config(f.total));
  ASSERT_TRUE(rt);
  hire_worker(*rt);
  // Hold the employees' answers until all affordable asks are in flight.
  backend_->release_at = kAffordable;

  msg::TaskResult r = rt->run_task("Do a thousand units of work.");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(backend_->calls("stub:paid"), kAffordable);
  EXPECT_EQ(static_cast<int>(backend_->max_pending()), kAffordable);  // they really overlapped
  EXPECT_EQ(sink_->of("answer").size(), static_cast<size_t>(kAffordable));
  auto refusals = sink_->of("refusal");
  ASSERT_EQ(refusals.size(), static_cast<size_t>(kCalls - kAffordable));
  const std::string expected = economy::Budget::refusal_text("expense", f.hold, f.total - kAffordable * f.hold);
  for (auto& e : refusals) ASSERT_EQ(e.text, expected);

  json b = rt->budget();
  EXPECT_NEAR(b["current_expense"].get<double>(), kAffordable * f.hold, 1e-9);
  EXPECT_LE(b["current_expense"].get<double>(), b["total_expense_budget"].get<double>());
  EXPECT_DOUBLE_EQ(b["reserved_expense"].get<double>(), 0);
  EXPECT_EQ(b["inflight_asks"], 0);
}

TEST_F(CompanyRuntimeTest, ThousandThreadsCallingAskAgentNeverOvershoot) {
  const auto f = figures(kMaxOut);
  backend_ = std::make_shared<StubBackend>(
      script_with([](const llm::ChatRequest&) { return text_reply("unused"); }, worst_case_in(), kMaxOut));
  backend_->hold = 50ms;
  auto rt = start(make_config(f.total));
  ASSERT_TRUE(rt);
  hire_worker(*rt);

  std::atomic<int> ok{0}, refused{0}, other{0};
  std::atomic<bool> go{false};
  const std::string expected = economy::Budget::refusal_text("expense", f.hold, f.total - kAffordable * f.hold);
  std::vector<std::thread> threads;
  threads.reserve(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      json r = rt->call_tool("AskAgent", {{"agent_name", "Worker"}, {"prompt", kAskPrompt}});
      if (r["status"] == "success")
        ++ok;
      else if (r["message"] == expected)
        ++refused;
      else
        ++other;
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), kAffordable);
  EXPECT_EQ(refused.load(), kCalls - kAffordable);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(backend_->calls("stub:paid"), kAffordable);
  json b = rt->budget();
  EXPECT_NEAR(b["current_expense"].get<double>(), kAffordable * f.hold, 1e-9);
  EXPECT_LE(b["current_expense"].get<double>(), b["total_expense_budget"].get<double>());
  EXPECT_DOUBLE_EQ(b["reserved_expense"].get<double>(), 0);
}

TEST_F(CompanyRuntimeTest, UnknownCeoModelIsRefusedAtStart) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) { return text_reply("x"); }));
  config::Config c = make_config(1);
  c.ceo.model = "nope:model";
  RuntimeOptions o;
  o.config = c;
  o.chat = backend_;
  auto rt = CompanyRuntime::start(std::move(o));
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.error().message.find("nope:model"), std::string::npos) << rt.error().message;
  EXPECT_EQ(backend_->calls("nope:model"), 0);
}

// A tool source outside the CEO that answers on its own thread, like the
// sandboxed and MCP tools do; its tool list can change between model calls.
class ThreadedSource : public company::ToolSource {
 public:
  std::string origin() const override { return "test"; }
  std::vector<llm::ToolSpec> specs() const override {
    std::lock_guard lock(mu_);
    std::vector<llm::ToolSpec> v;
    if (offer_upper_)
      v.push_back({"Upper", "Upper-cases text",
                   json{{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", {"text"}}}});
    return v;
  }
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override {
    {
      std::lock_guard lock(mu_);
      contexts_.push_back(ctx);
    }
    std::thread([name, args, done = std::move(done)] {
      std::string t = args.value("text", "");
      for (char& ch : t) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      done(company::ToolResult::success(name + " done", t));
    }).detach();
  }
  void withdraw() {
    std::lock_guard lock(mu_);
    offer_upper_ = false;
  }
  std::vector<company::ToolCallContext> contexts() const {
    std::lock_guard lock(mu_);
    return contexts_;
  }

 private:
  mutable std::mutex mu_;
  bool offer_upper_ = true;
  std::vector<company::ToolCallContext> contexts_;
};

TEST_F(CompanyRuntimeTest, ProviderToolsAreOfferedCalledOffActorAndWithdrawn) {
  auto source = std::make_shared<ThreadedSource>();
  std::vector<size_t> tools_seen;
  std::mutex seen_mu;
  backend_ = std::make_shared<StubBackend>(script_with([&](const llm::ChatRequest& req) {
    {
      std::lock_guard lock(seen_mu);
      tools_seen.push_back(req.tools.size());
    }
    if (turn_of(req) == 0) return tool_reply({{"Upper", {{"text", "quiet"}}}});
    return text_reply("Final: " + req.messages.back().content);
  }));
  RuntimeOptions o;
  o.config = make_config(1);
  o.chat = backend_;
  o.progress = sink_;
  o.scheduler_threads = 2;
  o.tool_sources.push_back(source);
  auto started = CompanyRuntime::start(std::move(o));
  ASSERT_TRUE(started.ok()) << started.error().message;
  auto rt = std::move(started).value();

  msg::TaskResult r = rt->run_task("Shout quietly.");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.answer.find("QUIET"), std::string::npos) << r.answer;
  ASSERT_EQ(source->contexts().size(), 1u);
  EXPECT_EQ(source->contexts()[0].agent, "CEO");
  EXPECT_EQ(source->contexts()[0].task_id, r.task_id);
  {
    std::lock_guard lock(seen_mu);
    ASSERT_EQ(tools_seen.size(), 2u);
    EXPECT_EQ(tools_seen[0], tools_seen[1]);
  }

  // Schema checks apply to source tools as to any other.
  json bad = rt->call_tool("Upper", json{{"text", 5}});
  EXPECT_EQ(bad["status"], "error") << bad.dump();
  EXPECT_EQ(source->contexts().size(), 1u);

  // Withdrawn by its source: gone at the next sync, with no restart.
  source->withdraw();
  json gone = rt->call_tool("Upper", json{{"text", "x"}});
  EXPECT_EQ(gone["status"], "error") << gone.dump();
  msg::TaskResult r2 = rt->run_task("Again.");
  {
    std::lock_guard lock(seen_mu);
    ASSERT_GE(tools_seen.size(), 3u);
    EXPECT_EQ(tools_seen[2] + 1, tools_seen[0]);
  }
}

// ------------------------------------------------------------------ a handler throws

// Throws from emit() on the first event of `kind` by `agent`: an exception in
// the message handler of whichever actor emits it, as nlohmann's dump() threw
// in the planner on a prompt cut inside a UTF-8 sequence.
class ThrowingSink : public CapturingSink {
 public:
  ThrowingSink(std::string agent, std::string kind) : agent_(std::move(agent)), kind_(std::move(kind)) {}
  void emit(const msg::ProgressEvent& e) override {
    if (e.agent == agent_ && msg::event_kind_name(e.kind) == kind_ && !thrown_.exchange(true))
      throw std::runtime_error("injected fault on " + agent_ + "'s " + kind_ + " event");
    CapturingSink::emit(e);
  }
  bool thrown() const { return thrown_; }

 private:
  std::string agent_, kind_;
  std::atomic<bool> thrown_{false};
};

// run_task on its own thread, so a hang fails the test (after a deadline
// generous for a loaded machine) instead of blocking it.
msg::TaskResult run_or_fail(CompanyRuntime& rt, const std::string& input) {
  auto result = std::make_shared<std::promise<msg::TaskResult>>();
  auto answer = result->get_future();
  std::thread([&rt, input, result] { result->set_value(rt.run_task(input)); }).detach();
  if (answer.wait_for(60s) != std::future_status::ready) {
    ADD_FAILURE() << "run_task(\"" << input << "\") did not return within 60 s";
    std::abort();  // the runtime cannot be destroyed under a waiting call
  }
  return answer.get();
}

std::string task_status(const std::string& db, const std::string& session, const std::string& task_id,
                        std::string* error = nullptr) {
  auto st = store::JournalStore::open_read_only(db);
  if (!st.ok()) return st.error().message;
  auto tasks = (*st)->tasks(session);
  if (!tasks.ok()) return tasks.error().message;
  for (const auto& t : *tasks)
    if (t.id == task_id) {
      if (error) *error = t.error;
      return t.status;
    }
  return "(no such task)";
}

TEST_F(CompanyRuntimeTest, CeoHandlerThrowingFailsTheTaskWithTheMessage) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) { return text_reply("Done."); }));
  auto throwing = std::make_shared<ThrowingSink>("CEO", "task");
  sink_ = throwing;
  auto rt = start(make_config(1));
  ASSERT_TRUE(rt);
  msg::TaskResult r = run_or_fail(*rt, "Anything.");
  ASSERT_TRUE(throwing->thrown());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("the CEO stopped after an error in a message handler: injected fault on CEO's task event"),
            std::string::npos)
      << r.error;
  // The stopped CEO answers the next task at once, with an error.
  msg::TaskResult again = run_or_fail(*rt, "Again.");
  EXPECT_FALSE(again.ok);
  EXPECT_FALSE(again.error.empty());
  // A direct tool call does not wait either.
  EXPECT_EQ(rt->call_tool("GetBudget", json::object())["status"], "error");
  const std::string session = rt->session_id();
  rt.reset();
  std::string error;
  EXPECT_EQ(task_status(dir_.file("kaisha.db"), session, r.task_id, &error), "failed");
  EXPECT_NE(error.find("injected fault"), std::string::npos) << error;
}

TEST_F(CompanyRuntimeTest, EmployeeHandlerThrowingFailsTheAskAndTheCeoCarriesOn) {
  backend_ = std::make_shared<StubBackend>([](const std::string& ref, const llm::ChatRequest& req) {
    if (ref == "stub:ceo") {
      switch (turn_of(req)) {
        case 0:
          return tool_reply({{"AgentCreator",
                              {{"agent_name", "Helper"},
                               {"base_model", "helper"},
                               {"system_prompt", "You help."},
                               {"description", "Helps"}}}});
        case 1:
          return tool_reply({{"AskAgent", {{"agent_name", "Helper"}, {"prompt", "What is 1+1?"}}}});
        default:
          return text_reply("Final: " + req.messages.back().content);
      }
    }
    // The employee has Calculator: its tool call is the event that throws.
    if (turn_of(req) == 0) return tool_reply({{"Calculator", {{"expression", "1+1"}}}});
    return text_reply("2");
  });
  auto throwing = std::make_shared<ThrowingSink>("Helper", "tool_call");
  sink_ = throwing;
  config::Config c = make_config(1);
  c.employee.tools.all.push_back({"Calculator", "test"});
  auto rt = start(c);
  ASSERT_TRUE(rt);
  msg::TaskResult r = run_or_fail(*rt, "Add one and one.");
  ASSERT_TRUE(throwing->thrown());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.answer.find("employee Helper stopped after an error in a message handler: injected fault"),
            std::string::npos)
      << r.answer;
}

// InfiAgent item 17: no thread blocks while an agent waits. A pyramid root
// calls a mid agent 10 times and each mid call calls a leaf 20 times, all in
// one turn: 200 leaf calls wait on the model at once, on 4 scheduler
// threads. The stub answers no leaf call until all 200 are waiting (or a
// minute has passed, and then the test fails).
TEST_F(CompanyRuntimeTest, TwoHundredPyramidCallsWaitOnTheModelAtOnce) {
  constexpr int kMids = 10, kLeavesPerMid = 20;
  backend_ = std::make_shared<StubBackend>([](const std::string& ref, const llm::ChatRequest& req) {
    const std::string& system = req.messages.front().content;
    const bool first = turn_of(req) == 0;
    auto done = [](const char* what) {
      return tool_reply({{"final_output", json{{"status", "success"}, {"output", what}}}});
    };
    if (ref == "stub:leaf") return done("leaf done");
    if (system.find("ROLE-MID") != std::string::npos) {
      if (!first) return done("mid done");
      std::vector<std::pair<std::string, json>> calls;
      for (int i = 0; i < kLeavesPerMid; ++i)
        calls.push_back({"leaf", json{{"task_input", "part " + std::to_string(i)}}});
      return tool_reply(calls);
    }
    if (!first) return done("root done");
    std::vector<std::pair<std::string, json>> calls;
    for (int i = 0; i < kMids; ++i) calls.push_back({"mid", json{{"task_input", "half " + std::to_string(i)}}});
    return tool_reply(calls);
  });
  backend_->hold = 0ms;
  backend_->gated_ref = "stub:leaf";
  backend_->release_at = kMids * kLeavesPerMid;
  backend_->max_wait = 60s;
  const std::string library = dir_.write("lib.yaml", R"(max_children: 20
agents:
  - {name: leaf, level: 1, description: does a part, responsibility: ROLE-LEAF, available_tools: [final_output], model: "stub:leaf"}
  - {name: mid, level: 2, description: splits a half, responsibility: ROLE-MID, available_tools: [leaf, final_output]}
  - {name: root, level: 3, description: splits the task, responsibility: ROLE-ROOT, available_tools: [mid, final_output]}
)");
  config::Config c = make_config(1);
  c.strategy = "pyramid";
  pyramid::PyramidConfig pc;
  pc.library = library;
  pc.model = "stub:agent";
  pc.entry = "root";
  pc.enforce_judge = false;
  pc.max_calls_per_turn = kLeavesPerMid;
  c.strategy_settings[pyramid::kSection] = pc;
  c.tools.workspace_root = dir_.file("work");
  auto rt = start(c);
  ASSERT_TRUE(rt);
  msg::TaskResult r = run_or_fail(*rt, "Split it all up.");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(backend_->calls("stub:leaf"), kMids * kLeavesPerMid);
  EXPECT_GE(backend_->max_pending(), static_cast<size_t>(kMids * kLeavesPerMid));
}

// effgen: the planner's own handler, and the judge's.
config::Config effgen_config(config::Config c, bool judge) {
  c.strategy = "effgen";
  c.judge.subtasks = judge;
  c.judge.final_answer = false;
  return c;
}

TEST_F(CompanyRuntimeTest, PlannerHandlerThrowingFailsTheTaskWithTheMessage) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) { return text_reply("4"); }));
  auto throwing = std::make_shared<ThrowingSink>("Planner", "ask");
  sink_ = throwing;
  auto rt = start(effgen_config(make_config(1), false));
  ASSERT_TRUE(rt);
  msg::TaskResult r = run_or_fail(*rt, "What is 2+2?");
  ASSERT_TRUE(throwing->thrown());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("the planner stopped after an error in a message handler: injected fault on Planner's ask"),
            std::string::npos)
      << r.error;
  const std::string session = rt->session_id();
  rt.reset();  // also stops the worker the planner had hired
  EXPECT_EQ(task_status(dir_.file("kaisha.db"), session, r.task_id), "failed");
}

TEST_F(CompanyRuntimeTest, JudgeHandlerThrowingFailsTheAuditNotTheTask) {
  backend_ = std::make_shared<StubBackend>(script_with([](const llm::ChatRequest&) {
    return text_reply(R"({"status":"success","output":"fine","error_information":""})");
  }));
  auto throwing = std::make_shared<ThrowingSink>("Judge", "verdict");
  sink_ = throwing;
  auto rt = start(effgen_config(make_config(1), true));
  ASSERT_TRUE(rt);
  msg::TaskResult r = run_or_fail(*rt, "What is 2+2?");
  ASSERT_TRUE(throwing->thrown());
  const std::string text = r.ok ? r.answer : r.error;
  EXPECT_NE(text.find("the judge stopped after an error in a message handler: injected fault"), std::string::npos)
      << "ok=" << r.ok << ": " << text;
}

}  // namespace
}  // namespace kaisha::actors
