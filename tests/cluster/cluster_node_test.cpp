// Real nodes in one process over loopback tcp: joining through a seed,
// heartbeats and the failure detector, restarts under the same name, and
// requests that end with node_down when their node dies.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "cluster/cluster_node.hpp"
#include "cluster/inline_delivery.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "tests/cluster/cluster_test_support.hpp"

namespace kaisha::cluster {
namespace {

using namespace testing;
using namespace std::chrono_literals;

struct Trio {
  ClusterConfig config;
  std::unique_ptr<ClusterNode> a, b, c;
};

Trio start_trio(const config::Config* company = nullptr) {
  Trio t;
  t.config =
      cluster_config({node_config("a", {}, 100, true), node_config("b", {"llama3.2"}), node_config("c", {"llama3.2"})});
  t.a = start_node(t.config, "a");
  t.config.seeds.push_back(Seed{t.a->endpoint(), ""});
  t.b = start_node(t.config, "b", company);
  t.c = start_node(t.config, "c", company);
  return t;
}

bool all_alive(const ClusterNode& n, size_t count) {
  auto ms = n.members();
  if (ms.size() != count) return false;
  for (const auto& m : ms)
    if (m.state != MemberState::alive) return false;
  return true;
}

// Spawns "Slowpoke" on node b: an employee whose model (start_mock) answers
// prompts containing "slow" only after its latency.
void spawn_slowpoke(Trio& t) {
  msg::AgentSpec spec;
  spec.name = "Slowpoke";
  spec.model_ref = "ollama:llama3.2";
  spec.system_prompt = "You answer slowly.";
  ASSERT_TRUE(t.a->send("b", msg::wrap(msg::SpawnAgent{spec}, {"a", "CEO"}, {"b", "Slowpoke"}, t.a->next_id())).ok());
}

TEST(ClusterNode, NodesLearnTheWholeMembershipThroughOneSeed) {
  Trio t = start_trio();
  ASSERT_TRUE(t.a && t.b && t.c);
  // b and c only know a; they learn of each other by gossip.
  EXPECT_TRUE(eventually([&] { return all_alive(*t.a, 3) && all_alive(*t.b, 3) && all_alive(*t.c, 3); }))
      << t.b->status().dump();
  auto c_seen_by_b = t.b->member("c");
  ASSERT_TRUE(c_seen_by_b);
  EXPECT_EQ(c_seen_by_b->info.capabilities.models, std::vector<std::string>{"llama3.2"});
  EXPECT_EQ(c_seen_by_b->info.endpoint, t.c->endpoint());
}

TEST(ClusterNode, SilentNodeIsSuspectedThenDownAndRejoinsAfterRestart) {
  // Declared before the nodes: the listener may still run while they stop.
  std::mutex mu;
  std::vector<std::string> seen;
  Trio t = start_trio();
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3) && all_alive(*t.b, 3); }));
  t.a->add_listener([&](const MembershipEvent& e) {
    std::lock_guard<std::mutex> g(mu);
    seen.push_back(std::string(to_string(e.kind)) + ":" + e.node);
  });
  const int64_t old_incarnation = t.c->incarnation();
  t.c->stop();  // silent from now on, like a crash
  EXPECT_TRUE(eventually([&] { return state_of(*t.a, "c") == "down" && state_of(*t.b, "c") == "down"; }));
  {
    std::lock_guard<std::mutex> g(mu);
    EXPECT_NE(std::find(seen.begin(), seen.end(), "suspected:c"), seen.end());
    EXPECT_NE(std::find(seen.begin(), seen.end(), "down:c"), seen.end());
  }
  // Same name, new life, new port.
  t.c = start_node(t.config, "c", nullptr, old_incarnation + 1);
  ASSERT_TRUE(t.c);
  EXPECT_TRUE(eventually([&] { return state_of(*t.a, "c") == "alive" && state_of(*t.b, "c") == "alive"; }));
  EXPECT_EQ(t.a->member("c")->info.incarnation, old_incarnation + 1);
  EXPECT_EQ(t.a->member("c")->info.endpoint, t.c->endpoint());
  EXPECT_TRUE(eventually([&] { return all_alive(*t.c, 3); }));
}

TEST(ClusterNode, PendingRequestFailsWithNodeDownWhenItsNodeDies) {
  auto mock = start_mock(/*slow_latency_ms=*/20000);
  ASSERT_TRUE(mock);
  config::Config company = company_config(mock->port());
  Trio t = start_trio(&company);
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3); }));
  ASSERT_NO_FATAL_FAILURE(spawn_slowpoke(t));
  std::atomic<int> calls{0};
  std::mutex mu;
  Error error;
  msg::AskRequest ask{"s", "t", "please be slow", 64, ""};
  t.a->request("b", msg::wrap(ask, {"a", "CEO"}, {"b", "Slowpoke"}, t.a->next_id()), 60000,
               [&](Result<msg::Envelope> r) {
                 std::lock_guard<std::mutex> g(mu);
                 ++calls;
                 if (!r.ok()) error = r.error();
               });
  ASSERT_TRUE(eventually([&] { return mock->request_log().size() == 1; })) << "the employee never called the model";
  t.b->stop();
  EXPECT_TRUE(eventually([&] { return calls.load() == 1; }, 5s)) << "the request was not ended";
  std::lock_guard<std::mutex> g(mu);
  EXPECT_EQ(error.code, "node_down");
  EXPECT_NE(error.message.find("node 'b' is down"), std::string::npos) << error.message;
  // A request to a node already known down fails at once.
  std::atomic<bool> refused{false};
  t.a->request("b", msg::wrap(ask, {"a", "CEO"}, {"b", "Slowpoke"}, t.a->next_id()), 0,
               [&](Result<msg::Envelope> r) { refused = !r.ok() && r.error().code == "node_down"; });
  EXPECT_TRUE(refused.load());
}

TEST(ClusterNode, AskToAnUnknownAgentIsAnsweredNotLeftToTimeOut) {
  auto mock = start_mock();
  ASSERT_TRUE(mock);
  config::Config company = company_config(mock->port());
  Trio t = start_trio(&company);
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3); }));
  std::atomic<bool> done{false};
  std::string type, payload;
  t.a->request("b", msg::wrap(msg::AskRequest{"s", "t", "hi", 0, ""}, {"a", "CEO"}, {"b", "Nobody"}, t.a->next_id()),
               60000, [&](Result<msg::Envelope> r) {
                 if (r.ok()) {
                   type = r->type;
                   auto f = msg::unwrap<msg::RequestFailed>(*r);
                   if (f.ok()) payload = f->code + ": " + f->message;
                 }
                 done = true;
               });
  ASSERT_TRUE(eventually([&] { return done.load(); }));
  EXPECT_EQ(type, "request_failed");
  EXPECT_EQ(payload, "unknown_agent: agent 'Nobody' is not hosted on node 'b'");
}

// Asks `agent` on b from a; returns "ok: <output>", "failed: <error>" or
// "<code>: <message>" for a request_failed answer.
std::string ask_on_b(Trio& t, const std::string& agent, const std::string& prompt) {
  std::atomic<bool> done{false};
  std::string outcome = "no answer";
  t.a->request("b", msg::wrap(msg::AskRequest{"s", "t", prompt, 64, ""}, {"a", "CEO"}, {"b", agent}, t.a->next_id()),
               60000, [&](Result<msg::Envelope> r) {
                 if (!r.ok())
                   outcome = "error: " + r.error().message;
                 else if (auto reply = msg::unwrap<msg::AskReply>(*r); reply.ok())
                   outcome = reply->ok ? "ok: " + reply->output : "failed: " + reply->error;
                 else if (auto f = msg::unwrap<msg::RequestFailed>(*r); f.ok())
                   outcome = f->code + ": " + f->message;
                 done = true;
               });
  if (!eventually([&] { return done.load(); })) return "timed out";
  return outcome;
}

// Proxies start their employees lazily, so after a fire and a re-hire of a
// name the hosting node may get the two spawns in either order: the later
// hire must win, and a stopped hire must not come back.
TEST(ClusterNode, ASpawnOfAnEarlierHireThatArrivesLateIsIgnored) {
  auto mock = start_mock();
  ASSERT_TRUE(mock);
  config::Config company = company_config(mock->port());
  Trio t = start_trio(&company);
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3); }));
  msg::AgentSpec later;
  later.name = "Mist";
  later.model_ref = "ollama:llama3.2";
  later.system_prompt = "You help.";
  msg::AgentSpec earlier = later;
  earlier.model_ref = "nosuchprovider:model";  // would fail every ask
  // Same connection, so b gets them in this order.
  ASSERT_TRUE(t.a->send("b", msg::wrap(msg::SpawnAgent{later, 6}, {"a", "CEO"}, {"b", "Mist"}, t.a->next_id())).ok());
  ASSERT_TRUE(t.a->send("b", msg::wrap(msg::SpawnAgent{earlier, 5}, {"a", "CEO"}, {"b", "Mist"}, t.a->next_id())).ok());
  EXPECT_EQ(ask_on_b(t, "Mist", "hi"), "ok: echo: hi");

  ASSERT_TRUE(t.a->send("b", msg::wrap(msg::StopAgent{"Mist", 6}, {"a", "CEO"}, {"b", "Mist"}, t.a->next_id())).ok());
  ASSERT_TRUE(t.a->send("b", msg::wrap(msg::SpawnAgent{earlier, 5}, {"a", "CEO"}, {"b", "Mist"}, t.a->next_id())).ok());
  EXPECT_EQ(ask_on_b(t, "Mist", "hi"), "unknown_agent: agent 'Mist' is not hosted on node 'b'");

  // A spawn without a hire number (an older CEO node) is still obeyed.
  ASSERT_TRUE(t.a->send("b", msg::wrap(msg::SpawnAgent{later}, {"a", "CEO"}, {"b", "Mist"}, t.a->next_id())).ok());
  EXPECT_EQ(ask_on_b(t, "Mist", "again"), "ok: echo: again");
}

TEST(ClusterNode, RequestPastItsDeadlineTimesOutWithAClearError) {
  auto mock = start_mock(/*slow_latency_ms=*/20000);
  ASSERT_TRUE(mock);
  config::Config company = company_config(mock->port());
  Trio t = start_trio(&company);
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3); }));
  ASSERT_NO_FATAL_FAILURE(spawn_slowpoke(t));
  std::atomic<bool> done{false};
  Error error;
  t.a->request(
      "b", msg::wrap(msg::AskRequest{"s", "t", "slow please", 0, ""}, {"a", "CEO"}, {"b", "Slowpoke"}, t.a->next_id()),
      300, [&](Result<msg::Envelope> r) {
        if (!r.ok()) error = r.error();
        done = true;
      });
  ASSERT_TRUE(eventually([&] { return done.load(); }));
  EXPECT_EQ(error.code, "timeout");
  EXPECT_NE(error.message.find("no answer from node 'b'"), std::string::npos);
  EXPECT_EQ(state_of(*t.a, "b"), "alive");  // slow is not dead
}

// Request deadlines run on the steady clock: setting the system clock an
// hour forward expires nothing, and setting it back delays no timeout.
TEST(ClusterNode, AWallClockJumpNeitherExpiresNorDelaysARequest) {
  auto mock = start_mock(/*slow_latency_ms=*/1500);
  ASSERT_TRUE(mock);
  config::Config company = company_config(mock->port());
  Trio t = start_trio(&company);
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3); }));
  ASSERT_NO_FATAL_FAILURE(spawn_slowpoke(t));
  struct Shift {  // undone however the test ends
    int64_t ms = 0;
    void by(int64_t d) {
      shift_wall_clock_for_testing(d);
      ms += d;
    }
    ~Shift() { shift_wall_clock_for_testing(-ms); }
  } shift;

  std::atomic<bool> done{false};
  std::string outcome = "no answer";
  t.a->request(
      "b", msg::wrap(msg::AskRequest{"s", "t", "slow please", 0, ""}, {"a", "CEO"}, {"b", "Slowpoke"}, t.a->next_id()),
      60000, [&](Result<msg::Envelope> r) {
        outcome = r.ok() ? r->type : "error " + r.error().code + ": " + r.error().message;
        done = true;
      });
  ASSERT_TRUE(eventually([&] { return mock->request_log().size() == 1; })) << "the employee never called the model";
  shift.by(2 * 3600 * 1000);  // two hours forward, while the model answers slowly
  ASSERT_TRUE(eventually([&] { return done.load(); }, 30s));
  EXPECT_EQ(outcome, msg::AskReply::kType);

  shift.by(-4 * 3600 * 1000);  // now two hours back
  done = false;
  Error error;
  t.a->request(
      "b", msg::wrap(msg::AskRequest{"s", "t", "slow please", 0, ""}, {"a", "CEO"}, {"b", "Slowpoke"}, t.a->next_id()),
      300, [&](Result<msg::Envelope> r) {
        if (!r.ok()) error = r.error();
        done = true;
      });
  ASSERT_TRUE(eventually([&] { return done.load(); }, 30s)) << "a 300 ms timeout waited for the wall clock";
  EXPECT_EQ(error.code, "timeout");
}

// 10,000 envelopes for one hosted agent, sent as fast as the gateway takes
// them: the receiving I/O thread runs each for a bounded number of actor
// runs, keeps reading heartbeats, and nobody is suspected.
TEST(ClusterNode, TenThousandEnvelopesForOneAgentStarveNoHeartbeat) {
  // Declared before the nodes: the listeners may still run while they stop.
  std::mutex mu;
  std::vector<std::string> alarms;
  auto mock = start_mock();
  ASSERT_TRUE(mock);
  config::Config company = company_config(mock->port());
  Trio t = start_trio(&company);
  ASSERT_TRUE(eventually([&] { return all_alive(*t.a, 3) && all_alive(*t.b, 3); }));
  // Only the flooded node's alarms: c takes no part, and on a machine loaded
  // far beyond its cores its 200 ms heartbeat window can lapse for reasons
  // that have nothing to do with the flood.
  auto watch = [&](const MembershipEvent& e) {
    if (e.node == "b" && (e.kind == MembershipEvent::Kind::suspected || e.kind == MembershipEvent::Kind::down)) {
      std::lock_guard<std::mutex> g(mu);
      alarms.push_back(std::string(to_string(e.kind)) + ":" + e.node);
    }
  };
  t.a->add_listener(watch);
  t.b->add_listener(watch);
  const uint64_t heartbeats_before = t.b->heartbeats_read();
  const uint64_t received_before = t.b->status()["gateway"]["received"].get<uint64_t>();
  // A full send queue refuses at once; the flood waits for room and goes on.
  uint64_t sent = 0;
  for (int tries = 0; sent < 10000 && tries < 1000000; ++tries) {
    if (t.a->send("b", msg::wrap(msg::StopAgent{"Ghost", 1}, {"a", "CEO"}, {"b", "Ghost"}, t.a->next_id())).ok())
      ++sent;
    else
      std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(sent, 10000u);
  ASSERT_TRUE(
      eventually([&] { return t.b->status()["gateway"]["received"].get<uint64_t>() >= received_before + sent; }, 120s));
  // Heartbeats went on being read, counted by the node rather than timed.
  EXPECT_TRUE(eventually([&] { return t.b->heartbeats_read() >= heartbeats_before + 2; }));
  EXPECT_LE(inline_delivery_stats().max_runs_per_envelope, 16u);
  EXPECT_TRUE(all_alive(*t.a, 3) && all_alive(*t.b, 3));
  std::lock_guard<std::mutex> g(mu);
  EXPECT_TRUE(alarms.empty()) << alarms.front();
}

}  // namespace
}  // namespace kaisha::cluster
