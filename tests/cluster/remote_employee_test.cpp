// The CEO side of remote employees: the placer picks a node by the
// employee's model and free units, the proxy asks it over the gateways, and
// a node that dies mid-ask costs one retry on another node — not a lost ask.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include "actors/atoms.hpp"
#include "cluster/cluster_placer.hpp"
#include "tests/cluster/cluster_test_support.hpp"

namespace kaisha::cluster {
namespace {

using namespace testing;
using namespace std::chrono_literals;

class CollectingSink : public company::ProgressSink {
 public:
  void emit(const msg::ProgressEvent& e) override {
    std::lock_guard<std::mutex> g(mu_);
    kinds_.push_back(e.kind + ":" + e.agent);
  }
  bool has(const std::string& k) {
    std::lock_guard<std::mutex> g(mu_);
    return std::find(kinds_.begin(), kinds_.end(), k) != kinds_.end();
  }

 private:
  std::mutex mu_;
  std::vector<std::string> kinds_;
};

msg::AgentSpec spec(const std::string& name, const std::string& model, double units) {
  msg::AgentSpec s;
  s.name = name;
  s.base_model = model;
  s.model_ref = "ollama:" + model;
  s.type = "local";
  s.system_prompt = "You are " + name + ".";
  s.costs = json{{"create_resource_cost", units}};
  return s;
}

struct Company {
  std::unique_ptr<mockllm::MockLlmServer> mock;
  config::Config company;
  ClusterConfig config;
  std::unique_ptr<ClusterNode> ceo, b, c;
  std::shared_ptr<CollectingSink> sink = std::make_shared<CollectingSink>();
  std::shared_ptr<ClusterPlacer> placer;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;

  explicit Company(int slow_ms, bool rehire = true) {
    mock = start_mock(slow_ms);
    company = company_config(mock->port());
    config = cluster_config({node_config("ceo", {"gpt-4o"}, 100, true), node_config("b", {"llama3.2", "mistral"}, 60),
                             node_config("c", {"llama3.2"}, 50)});
    ceo = start_node(config, "ceo");
    config.seeds.push_back(Seed{ceo->endpoint(), ""});
    b = start_node(config, "b", &company);
    c = start_node(config, "c", &company);
    PlacerOptions po;
    po.rehire = rehire;
    po.ask_timeout_ms = 30000;
    po.progress = sink;
    placer = ClusterPlacer::create(*ceo, po);
    cfg.set("scheduler.max-threads", 2);
    cfg.set("logger.console", caf::atom("none"));
    sys = std::make_unique<caf::actor_system>(cfg);
  }
  ~Company() {
    {
      caf::scoped_actor self{*sys};
      for (auto& a : placed) self->send_exit(a, caf::exit_reason::user_shutdown);
    }
    placed.clear();
    sys.reset();  // waits for the proxies, which needed the placer
    placer.reset();
  }
  Result<caf::actor> place(const msg::AgentSpec& s) {
    auto a = placer->place(*sys, s, actors::EmployeeDeps{});
    if (a.ok()) placed.push_back(*a);
    return a;
  }
  std::vector<caf::actor> placed;
  bool ready() {
    return eventually([&] {
      auto ms = ceo->members();
      return ms.size() == 3 && std::all_of(ms.begin(), ms.end(), [](const Member& m) { return m.state == MemberState::alive; });
    });
  }
  msg::AskReply ask(const caf::actor& employee, const std::string& prompt) {
    caf::scoped_actor self{*sys};
    msg::AskReply out;
    self->request(employee, std::chrono::seconds(60), actors::ask_atom::value, msg::AskRequest{"s", "t", prompt, 64})
        .receive([&](msg::AskReply& r) { out = std::move(r); },
                 [&](caf::error& e) {
                   out.ok = false;
                   out.error = sys->render(e);
                 });
    return out;
  }
};

TEST(RemoteEmployee, PlacedByModelAndUnitsAndAskedAcrossNodes) {
  Company co(0);
  ASSERT_TRUE(co.ready());
  // mistral: only b serves it.
  auto m = co.place(spec("Mist", "mistral", 10));
  ASSERT_TRUE(m.ok()) << m.error().message;
  // llama3.2 on b (50 free after Mist) or c (50 free): a tie, so b by name; 40 units: only b or c.
  auto l = co.place(spec("Llama", "llama3.2", 40));
  ASSERT_TRUE(l.ok()) << l.error().message;
  json agents = co.placer->agents();
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0]["name"], "Llama");
  EXPECT_EQ(agents[0]["node"], "b");
  EXPECT_EQ(agents[1]["node"], "b");
  // The next 40-unit llama no longer fits on b (10 free): c.
  auto l2 = co.place(spec("Llama2", "llama3.2", 40));
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(co.placer->agents()[1]["node"], "c");
  // Nothing fits 60 units any more, and gpt-4o's node (the CEO's) serves no llama.
  Status full = co.placer->check(spec("Big", "llama3.2", 60));
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("ceo: does not serve llama3.2"), std::string::npos) << full.error().message;

  msg::AskReply r = co.ask(*l, "what is 2+2?");
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output, "echo: what is 2+2?");
  EXPECT_EQ(r.agent, "Llama");
  msg::AskReply r2 = co.ask(*l2, "hello from afar");
  EXPECT_EQ(r2.output, "echo: hello from afar");
  EXPECT_GT(r2.usage.output_tokens, 0);
  EXPECT_EQ(co.placer->resources()["b"]["used"], 50.0);

  // Firing releases the units on the hosting node and stops the employee there.
  caf::scoped_actor self{*co.sys};
  self->send_exit(*l, caf::exit_reason::user_shutdown);
  EXPECT_TRUE(eventually([&] { return co.placer->resources()["b"]["used"] == 10.0; }));
}

TEST(RemoteEmployee, NodeKilledMidAskIsReHiredElsewhereAndTheAskRetriedOnce) {
  Company co(/*slow_ms=*/1500);
  ASSERT_TRUE(co.ready());
  auto poet = co.place(spec("Poet", "llama3.2", 10));
  ASSERT_TRUE(poet.ok());
  ASSERT_EQ(co.placer->agents()[0]["node"], "b");
  std::thread killer([&] {
    eventually([&] { return co.mock->request_log().size() == 1; });
    co.b->stop();  // mid-ask: the model call on b is under way
  });
  msg::AskReply r = co.ask(*poet, "slow poem please");
  killer.join();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output, "echo: slow poem please");
  EXPECT_EQ(co.placer->agents()[0]["node"], "c");
  EXPECT_EQ(co.placer->agents()[0]["state"], "hired");
  EXPECT_EQ(co.placer->resources()["c"]["used"], 10.0);
  EXPECT_EQ(co.placer->resources()["b"]["used"], 0.0);
  EXPECT_EQ(co.mock->request_log().size(), 2u);  // the interrupted call and its one retry
  EXPECT_TRUE(co.sink->has("node_down:Poet"));
  EXPECT_TRUE(co.sink->has("rehire:Poet"));
}

TEST(RemoteEmployee, WithoutRehireTheLossIsTheAsksAnswer) {
  Company co(/*slow_ms=*/20000, /*rehire=*/false);
  ASSERT_TRUE(co.ready());
  auto poet = co.place(spec("Poet", "llama3.2", 10));
  ASSERT_TRUE(poet.ok());
  std::thread killer([&] {
    eventually([&] { return co.mock->request_log().size() == 1; });
    co.b->stop();
  });
  msg::AskReply r = co.ask(*poet, "slow poem please");
  killer.join();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node_down"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("'b'"), std::string::npos) << r.error;
  EXPECT_EQ(co.placer->agents()[0]["state"], "lost");
  EXPECT_EQ(co.placer->resources()["b"]["used"], 0.0);
  msg::AskReply again = co.ask(*poet, "still there?");
  EXPECT_FALSE(again.ok);
  EXPECT_NE(again.error.find("was lost with node 'b'"), std::string::npos) << again.error;
}

}  // namespace
}  // namespace kaisha::cluster
