// The CEO side of employees on other nodes (EmployeeProxy): the placer picks a node by the
// employee's model and free units, the proxy asks it over the gateways, and
// a node that dies mid-ask costs one retry on another node — not a lost ask.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include <caf/all.hpp>

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/store/journal_store.hpp"
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
    kinds_.push_back(std::string(msg::event_kind_name(e.kind)) + ":" + e.agent);
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

// A directory of SQLite files removed at the end of the test.
struct TempFiles {
  std::filesystem::path dir;
  TempFiles() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kaisha-cluster-XXXXXX").string();
    if (mkdtemp(tmpl.data())) dir = tmpl;
  }
  ~TempFiles() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

struct Company {
  TempFiles files;
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
    config.nodes[2].capabilities.tags = {"gpu"};
    ceo = start_node(config, "ceo");
    config.seeds.push_back(Seed{ceo->endpoint(), ""});
    // Workers keep journals of their own.
    b = start_node(config, "b", &company, 0, files.file("b.db"));
    c = start_node(config, "c", &company, 0, files.file("c.db"));
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
      if (journal) self->send_exit(journal, caf::exit_reason::user_shutdown);
    }
    placed.clear();
    sys.reset();  // waits for the proxies, which needed the placer
    placer.reset();
  }
  Result<caf::actor> place(const msg::AgentSpec& s) {
    actors::EmployeeDeps local;
    local.journal = journal;
    auto a = placer->place(*sys, s, local);
    if (a.ok()) placed.push_back(*a);
    return a;
  }
  // The CEO node's journal, with session "s" and the hire of `hired` in it,
  // as the CEO writes them.
  void open_ceo_journal(const msg::AgentSpec& hired) {
    auto store = store::JournalStore::open(files.file("ceo.db"));
    ASSERT_TRUE(store.ok()) << store.error().message;
    store::SessionRow row;
    row.id = "s";
    ASSERT_TRUE((*store)->create_session(row).ok());
    ASSERT_TRUE((*store)->start_task("s", "t", "a task").ok());
    journal = actors::spawn_journal(*sys, std::shared_ptr<store::JournalStore>(std::move(*store)));
    actors::journal_agent_hired(journal, "s", hired);
    placer->journal_to("s");
  }
  caf::actor journal;
  std::vector<caf::actor> placed;
  bool ready() {
    return eventually([&] {
      auto ms = ceo->members();
      return ms.size() == 3 &&
             std::all_of(ms.begin(), ms.end(), [](const Member& m) { return m.state == MemberState::alive; });
    });
  }
  msg::AskReply ask(const caf::actor& employee, const std::string& prompt) {
    caf::scoped_actor self{*sys};
    msg::AskReply out;
    self->request(employee, std::chrono::seconds(60), actors::ask_atom::value,
                  msg::AskRequest{"s", "t", prompt, 64, ""})
        .receive([&](msg::AskReply& r) { out = std::move(r); },
                 [&](caf::error& e) {
                   out.ok = false;
                   out.error = sys->render(e);
                 });
    return out;
  }
};

TEST(EmployeeProxy, PlacedByModelAndUnitsAndAskedAcrossNodes) {
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

// A turn (the pyramid's ask: the asker's whole context and tools) crosses
// nodes as version 2 and is answered from its own messages, not `prompt`.
TEST(EmployeeProxy, ATurnIsAnsweredAcrossNodesFromItsOwnMessages) {
  Company co(0);
  ASSERT_TRUE(co.ready());
  auto m = co.place(spec("Mist", "mistral", 10));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(co.placer->agents()[0]["node"], "b");
  msg::AskRequest turn{"s", "t", "", 64, ""};
  turn.messages = {{llm::Role::system, "You are the writer of task t.", {}, "", ""},
                   {llm::Role::user, "turn from afar 🌏 川", {}, "", ""}};
  turn.tools = {llm::ToolSpec{"final_output", "ends the call", json{{"type", "object"}}}};
  caf::scoped_actor self{*co.sys};
  msg::AskReply r;
  self->request(*m, std::chrono::seconds(60), actors::ask_atom::value, turn)
      .receive([&](msg::AskReply& reply) { r = std::move(reply); },
               [&](caf::error& e) {
                 r.error = co.sys->render(e);
                 r.ok = false;
               });
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output, "echo: turn from afar 🌏 川");
}

TEST(EmployeeProxy, ModelTagsPickTheNodeAndAnEmployeeOnTheCeoNodeGivesItsUnitsBack) {
  Company co(0);
  ASSERT_TRUE(co.ready());
  // b has more units free, but only c carries "gpu".
  msg::AgentSpec gpu = spec("Gpu", "llama3.2", 10);
  gpu.costs["tags"] = {"gpu"};
  auto g = co.place(gpu);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(co.placer->agents()[0]["node"], "c");
  msg::AgentSpec tpu = spec("Tpu", "llama3.2", 10);
  tpu.costs["tags"] = {"tpu"};
  Status none = co.placer->check(tpu);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("lacks tag 'tpu'"), std::string::npos) << none.error().message;

  // gpt-4o is served by the CEO's own node: the employee runs there, and
  // stopping it (a fire) releases its units as a proxied one's would.
  auto local = co.place(spec("Chief", "gpt-4o", 30));
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_EQ(co.placer->resources()["ceo"]["used"], 30.0);
  caf::scoped_actor self{*co.sys};
  self->send_exit(*local, caf::exit_reason::user_shutdown);
  EXPECT_TRUE(eventually([&] { return co.placer->resources()["ceo"]["used"] == 0.0; }));
  EXPECT_EQ(co.placer->agents().size(), 1u);
  // A re-hire of the same name is a hire of its own.
  auto again = co.place(spec("Chief", "gpt-4o", 30));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(co.placer->resources()["ceo"]["used"], 30.0);
}

TEST(EmployeeProxy, AReHireBeforeTheFiredProxyStoppedKeepsItsUnitsAndKeepsRunning) {
  Company co(0);
  ASSERT_TRUE(co.ready());
  auto first = co.place(spec("Mist", "mistral", 10));
  ASSERT_TRUE(first.ok()) << first.error().message;
  // Running on b (a proxy starts its employee there when it first runs).
  ASSERT_TRUE(co.ask(*first, "hello").ok);
  // The CEO fired Mist and hires it again before the first proxy has stopped.
  auto second = co.place(spec("Mist", "mistral", 10));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(co.placer->resources()["b"]["used"], 10.0);
  {
    caf::scoped_actor self{*co.sys};
    self->send_exit(*first, caf::exit_reason::user_shutdown);
    self->wait_for(*first);
  }
  // The first proxy's release and its StopAgent (sent to b before the ask
  // below, on the same connection) name the first hire: the second keeps
  // its units and still answers.
  EXPECT_EQ(co.placer->resources()["b"]["used"], 10.0);
  ASSERT_EQ(co.placer->agents().size(), 1u);
  msg::AskReply r = co.ask(*second, "still there?");
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.output, "echo: still there?");
}

// Reads `path` (a journal some node wrote) once its writer is done with it.
std::vector<store::StepRow> steps_in(const std::string& path, const std::string& task) {
  auto store = store::JournalStore::open_read_only(path);
  if (!store.ok()) {
    ADD_FAILURE() << store.error().message;
    return {};
  }
  auto steps = (*store)->task_steps(task);
  if (!steps.ok()) ADD_FAILURE() << steps.error().message;
  return steps.ok() ? *steps : std::vector<store::StepRow>{};
}

std::vector<store::AgentRow> agents_in(const std::string& path, const std::string& session) {
  auto store = store::JournalStore::open_read_only(path);
  if (!store.ok()) {
    ADD_FAILURE() << store.error().message;
    return {};
  }
  auto rows = (*store)->all_agents(session);
  if (!rows.ok()) ADD_FAILURE() << rows.error().message;
  return rows.ok() ? *rows : std::vector<store::AgentRow>{};
}

std::vector<std::string> kinds_of(const std::vector<store::StepRow>& steps, const std::string& agent) {
  std::vector<std::string> out;
  for (const auto& s : steps)
    if (s.agent == agent) out.push_back(s.kind);
  return out;
}

TEST(EmployeeProxy, NodeKilledMidAskIsReHiredElsewhereAndTheAskRetriedOnce) {
  Company co(/*slow_ms=*/1500);
  ASSERT_TRUE(co.ready());
  msg::AgentSpec poet_spec = spec("Poet", "llama3.2", 10);
  co.open_ceo_journal(poet_spec);
  auto poet = co.place(poet_spec);
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

  // The CEO node's agents table: the hire on b lost, the re-hire on c hired.
  {
    caf::scoped_actor self{*co.sys};
    self->send_exit(co.journal, caf::exit_reason::user_shutdown);
    self->wait_for(co.journal);
    co.journal = caf::actor();
  }
  auto rows = agents_in(co.files.file("ceo.db"), "s");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "Poet");
  EXPECT_EQ(rows[0].state, "lost");
  EXPECT_EQ(rows[1].name, "Poet");
  EXPECT_EQ(rows[1].state, "hired");
  // Each worker journaled what it did, under the CEO's session and task:
  // the stopped node the interrupted request, the other the whole retry.
  co.c->stop();  // its journal commits what is queued
  auto on_c = kinds_of(steps_in(co.files.file("c.db"), "t"), "Poet");
  EXPECT_NE(std::find(on_c.begin(), on_c.end(), "llm_request"), on_c.end());
  EXPECT_NE(std::find(on_c.begin(), on_c.end(), "llm_response"), on_c.end());
  auto on_b = kinds_of(steps_in(co.files.file("b.db"), "t"), "Poet");
  ASSERT_FALSE(on_b.empty());
  EXPECT_EQ(on_b[0], "llm_request");
}

TEST(EmployeeProxy, WithoutRehireTheLossIsTheAsksAnswer) {
  Company co(/*slow_ms=*/20000, /*rehire=*/false);
  ASSERT_TRUE(co.ready());
  msg::AgentSpec poet_spec = spec("Poet", "llama3.2", 10);
  co.open_ceo_journal(poet_spec);
  auto poet = co.place(poet_spec);
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
  // Written to the CEO node's agents table: a resumed session does not count on it.
  {
    caf::scoped_actor self{*co.sys};
    self->send_exit(co.journal, caf::exit_reason::user_shutdown);
    self->wait_for(co.journal);
    co.journal = caf::actor();
  }
  auto rows = agents_in(co.files.file("ceo.db"), "s");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].state, "lost");
}

}  // namespace
}  // namespace kaisha::cluster
