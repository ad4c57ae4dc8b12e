// Cross-node costs against raw ZeroMQ, measured in one run on tcp loopback:
//  1. AskAgent round trip CEO-side proxy -> remote node -> employee with a
//     zero-latency model stub -> back, vs a raw DEALER/ROUTER echo of a
//     payload of the same size (target: p50 <= 1.5x raw).
//  2. One-way agent messages between two nodes (encode, gateway, decode,
//     dispatch) vs raw DEALER -> ROUTER with msgpack encode/decode
//     (target: >= 50% of raw).
//  3. Failure detection: a node stops answering (its process state is gone:
//     no goodbye) and the time until the other declares it down, 20 times,
//     with the default timeouts.
// Prints one line per figure and the ratios. BENCH_CLUSTER_ITERS overrides
// the round-trip count, BENCH_CLUSTER_KILLS the number of kills. For
// profiling: BENCH_CLUSTER_RT_ONLY=1 stops after the round trips, and
// BENCH_CLUSTER_ONLY=raw|actor|scoped runs only that round-trip arm (so that
// perf stat counts can be divided by the number of round trips).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <caf/all.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "actors/caf/atoms.hpp"
#include "actors/caf/scheduler_tuning.hpp"
#include "cluster/inline_delivery.hpp"
#include "cluster/cluster_node.hpp"
#include "cluster/cluster_placer.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/company/chat_client.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"

using namespace kaisha;
using Clock = std::chrono::steady_clock;

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

double us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

struct Stats {
  double p50, p90, p99;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, size_t(q * v.size()))]; };
  return {at(0.5), at(0.9), at(0.99)};
}

// A model that answers at once, on the caller's thread.
class InstantModel : public company::ChatClient {
 public:
  Status check_model(const std::string&) const override { return Status::Ok(); }
  void chat(const std::string&, llm::ChatRequest, company::ChatHandlers h) override {
    llm::ChatResponse r;
    r.message.role = llm::Role::assistant;
    r.message.content = "ok";
    r.usage = {10, 2, false};
    h.on_done(std::move(r));
  }
};

cluster::ClusterConfig two_nodes() {
  cluster::ClusterConfig c;
  c.source = "<bench>";
  c.allow_plaintext = true;
  for (const char* name : {"ceo", "worker"}) {
    cluster::NodeConfig n;
    n.name = name;
    n.bind = "tcp://127.0.0.1:0";
    n.advertise = n.bind;
    n.capabilities.ceo = std::string(name) == "ceo";
    n.capabilities.models = n.capabilities.ceo ? std::vector<std::string>{"none"} : std::vector<std::string>{};
    c.nodes.push_back(n);
  }
  return c;
}

std::unique_ptr<cluster::ClusterNode> start(const cluster::ClusterConfig& c, const std::string& name, bool host) {
  cluster::NodeOptions o;
  o.cluster = c;
  o.name = name;
  o.log = [](const std::string&) {};
  if (host) o.chat = std::make_shared<InstantModel>();
  auto n = cluster::ClusterNode::start(o);
  if (!n.ok()) {
    std::fprintf(stderr, "%s\n", n.error().message.c_str());
    std::exit(1);
  }
  return std::move(n).value();
}

bool wait_alive(cluster::ClusterNode& n, const std::string& other) {
  for (int i = 0; i < 500; ++i) {
    auto m = n.member(other);
    if (m && m->state == cluster::MemberState::alive) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Asks `left` times in a row from inside an actor, as the CEO does (no
// thread outside CAF in the loop), recording each round trip.
struct AskLoop {
  caf::actor employee;
  msg::AskRequest ask;
  int left = 0;
  std::vector<double>* out = nullptr;
  bool caf_timeout = env_int("BENCH_CLUSTER_CAF_TIMEOUT", 1) != 0;
  std::promise<bool> done;
};

void ask_next(caf::event_based_actor* self, std::shared_ptr<AskLoop> loop) {
  if (loop->left-- == 0) {
    loop->done.set_value(true);
    return self->quit();
  }
  auto t0 = Clock::now();
  auto on_reply = [=](msg::AskReply& r) {
    if (!r.ok) {
      loop->done.set_value(false);
      return self->quit();
    }
    loop->out->push_back(us(Clock::now() - t0));
    ask_next(self, loop);
  };
  auto on_error = [=](caf::error&) {
    loop->done.set_value(false);
    self->quit();
  };
  // With a timeout, as the CEO asks an employee (charged_call); without,
  // to show what the actor clock's timer costs per ask.
  if (loop->caf_timeout)
    self->request(loop->employee, std::chrono::seconds(10), actors::ask_atom::value, loop->ask)
        .then(on_reply, on_error);
  else
    self->request(loop->employee, caf::infinite, actors::ask_atom::value, loop->ask).then(on_reply, on_error);
}

bool ask_from_actor(caf::actor_system& sys, const caf::actor& employee, const msg::AskRequest& ask, int n,
                    std::vector<double>& out) {
  auto loop = std::make_shared<AskLoop>();
  loop->employee = employee;
  loop->ask = ask;
  loop->left = n;
  loop->out = &out;
  auto result = loop->done.get_future();
  sys.spawn([loop](caf::event_based_actor* self) -> caf::behavior {
    ask_next(self, loop);
    return {[](actors::done_atom) {}};
  });
  return result.get();
}

bool ask_from_scoped(caf::actor_system& sys, const caf::actor& employee, const msg::AskRequest& ask, int n,
                     std::vector<double>& out) {
  caf::scoped_actor self{sys};
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    bool ok = false;
    self->request(employee, std::chrono::seconds(10), actors::ask_atom::value, ask)
        .receive([&](msg::AskReply& r) { ok = r.ok; }, [&](caf::error&) {});
    if (!ok) return false;
    out.push_back(us(Clock::now() - t0));
  }
  return true;
}

// ------------------------------------------------------------ raw zmq

void raw_round_trips(size_t payload, int iters, std::vector<double>& rtt) {
  zmq::context_t ctx;
  zmq::socket_t router(ctx, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 1000);
  router.bind("tcp://127.0.0.1:0");
  const std::string ep = router.get(zmq::sockopt::last_endpoint);
  std::thread echo([&router, iters] {
    std::vector<zmq::message_t> parts;
    for (int i = 0; i < iters + 100; ++i) {
      parts.clear();
      if (!zmq::recv_multipart(router, std::back_inserter(parts))) return;
      zmq::send_multipart(router, parts);
    }
  });
  zmq::socket_t dealer(ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 1000);
  dealer.connect(ep);
  const std::string body(payload, 'x');
  for (int i = 0; i < iters + 100; ++i) {
    auto t0 = Clock::now();
    dealer.send(zmq::buffer(body), zmq::send_flags::none);
    zmq::message_t m;
    (void)dealer.recv(m);
    if (i >= 100) rtt.push_back(us(Clock::now() - t0));
  }
  echo.join();
}

double raw_one_way_per_s(const msg::Envelope& sample, int n) {
  zmq::context_t ctx;
  zmq::socket_t router(ctx, zmq::socket_type::router);
  router.set(zmq::sockopt::rcvhwm, 0);
  router.bind("tcp://127.0.0.1:0");
  const std::string ep = router.get(zmq::sockopt::last_endpoint);
  zmq::socket_t dealer(ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::sndhwm, 0);
  dealer.set(zmq::sockopt::linger, 1000);
  dealer.connect(ep);
  auto t0 = Clock::now();
  std::thread rx([&] {
    std::vector<zmq::message_t> parts;
    for (int i = 0; i < n; ++i) {
      parts.clear();
      (void)zmq::recv_multipart(router, std::back_inserter(parts));
      auto e = msg::decode_envelope(parts[1].to_string_view());
      if (!e.ok()) std::abort();
    }
  });
  for (int i = 0; i < n; ++i) {
    std::string bytes = msg::encode(sample);
    dealer.send(zmq::buffer(bytes), zmq::send_flags::none);
  }
  rx.join();
  return n / std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main() {
  const int iters = env_int("BENCH_CLUSTER_ITERS", 2000);
  const int kills = env_int("BENCH_CLUSTER_KILLS", 20);
  std::printf("load average: ");
  std::fflush(stdout);
  (void)std::system("cut -d' ' -f1-3 /proc/loadavg");

  // ---- 1. AskAgent round trip
  cluster::ClusterConfig c = two_nodes();
  auto ceo = start(c, "ceo", false);
  c.seeds.push_back(cluster::Seed{ceo->endpoint(), ""});
  auto worker = start(c, "worker", true);
  if (!wait_alive(*ceo, "worker")) return std::fprintf(stderr, "worker did not join\n"), 1;
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.console", caf::atom("none"));
  // The CEO side's scheduler as CompanyRuntime configures it (prompt
  // wake-ups, as the worker node's own system), unless asked for CAF's
  // defaults with BENCH_CLUSTER_PROMPT_WAKEUPS=0.
  const bool prompt = env_int("BENCH_CLUSTER_PROMPT_WAKEUPS", 1) != 0;
  if (prompt) actors::use_prompt_wakeups(cfg);
  std::printf("CEO-side scheduler: %s; asks from an actor %s a CAF timeout\n",
              prompt ? "prompt wake-ups" : "CAF defaults",
              env_int("BENCH_CLUSTER_CAF_TIMEOUT", 1) ? "with" : "without");
  auto sys = std::make_unique<caf::actor_system>(cfg);
  cluster::PlacerOptions po;
  auto placer = cluster::ClusterPlacer::create(*ceo, po);
  msg::AgentSpec spec;
  spec.name = "Echo";
  spec.base_model = "stub";
  spec.model_ref = "stub:stub";
  spec.system_prompt = "You echo.";
  auto emp = placer->place(*sys, spec, actors::EmployeeDeps{});
  if (!emp.ok()) return std::fprintf(stderr, "%s\n", emp.error().message.c_str()), 1;
  msg::AskRequest ask{"s", "t", "What is the capital of France? Answer in one word.", 64, ""};
  const std::string sample = msg::encode(msg::wrap(ask, {"ceo", "CEO"}, {"worker", "Echo"}, "ceo-1-1", "", "t"));
  // In alternating blocks, so that the machine's changing load weighs on
  // all three alike.
  std::vector<double> actor_rtt, scoped_rtt, raw;
  std::vector<double> warm;
  if (!ask_from_actor(*sys, *emp, ask, 100, warm)) return std::fprintf(stderr, "ask failed\n"), 1;
  const int blocks = 4;
  const char* only_env = std::getenv("BENCH_CLUSTER_ONLY");
  const std::string only = only_env ? only_env : "";
  for (int b = 0; b < blocks; ++b) {
    if (only.empty() || only == "raw") raw_round_trips(sample.size(), iters / blocks, raw);
    if ((only.empty() || only == "actor") && !ask_from_actor(*sys, *emp, ask, iters / blocks, actor_rtt))
      return std::fprintf(stderr, "ask failed\n"), 1;
    if ((only.empty() || only == "scoped") && !ask_from_scoped(*sys, *emp, ask, iters / blocks, scoped_rtt))
      return std::fprintf(stderr, "ask failed\n"), 1;
  }
  if (!only.empty()) {
    std::vector<double>& v = only == "raw" ? raw : only == "actor" ? actor_rtt : scoped_rtt;
    Stats s = stats(v);
    std::printf("%s only: p50 %.1f us p90 %.1f\n", only.c_str(), s.p50, s.p90);
    return 0;
  }
  Stats a = stats(actor_rtt), sc = stats(scoped_rtt), r = stats(raw);
  std::printf("round trip, %zu-byte envelope, %d calls each\n", sample.size(), iters);
  std::printf("  raw zmq DEALER/ROUTER        p50 %7.1f us  p90 %7.1f  p99 %7.1f\n", r.p50, r.p90, r.p99);
  std::printf("  AskAgent from an actor       p50 %7.1f us  p90 %7.1f  p99 %7.1f\n", a.p50, a.p90, a.p99);
  std::printf("  AskAgent from a scoped_actor p50 %7.1f us  p90 %7.1f  p99 %7.1f\n", sc.p50, sc.p90, sc.p99);
  std::printf("  ratio p50 %.2fx from an actor, %.2fx from a scoped_actor (target <= 1.5x)\n", a.p50 / r.p50,
              sc.p50 / r.p50);
  const auto inl = cluster::inline_delivery_stats();
  const double asks = 100.0 + double(actor_rtt.size() + scoped_rtt.size());
  std::printf("  actor runs on the gateways' I/O threads: %.1f per ask (%.2f per ask handed to CAF workers)\n",
              double(inl.inline_runs) / asks, double(inl.handed_over) / asks);

  if (env_int("BENCH_CLUSTER_RT_ONLY", 0)) return 0;
  // ---- 2. one-way throughput
  const int n = iters * 50;
  std::atomic<int> got{0};
  // Delivered into an actor's mailbox, as an agent message is: with
  // cluster::deliver() from the gateway's I/O thread, as the hosting node
  // delivers an ask (BENCH_CLUSTER_ONEWAY_ANON=1: with caf::anon_send, which
  // wakes a CAF worker whenever the receiver has gone idle).
  caf::actor counter = sys->spawn([&got](caf::event_based_actor*) -> caf::behavior {
    return {[&got](actors::done_atom, const std::string&) { ++got; }};
  });
  const bool oneway_anon = env_int("BENCH_CLUSTER_ONEWAY_ANON", 0) != 0;
  worker->handle("bench_oneway", [counter, oneway_anon](const msg::Envelope& e) {
    if (oneway_anon)
      caf::anon_send(counter, actors::done_atom::value, e.payload);
    else
      cluster::deliver(counter, caf::make_message(actors::done_atom::value, e.payload));
  });
  msg::Envelope one = msg::wrap(ask, {"ceo", "CEO"}, {"worker", "node"}, "");
  one.type = "bench_oneway";
  // A full queue to the peer is refused at once ("backpressure"): like a
  // producer should, the sender waits a moment and retries, never dropping.
  const uint64_t refused_before = ceo->counters().send_failures;
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    one.id = std::to_string(i);
    for (;;) {
      Status s = ceo->send("worker", one);
      if (s.ok()) break;
      if (s.error().code != "backpressure") return std::fprintf(stderr, "%s\n", s.error().message.c_str()), 1;
      std::this_thread::yield();
    }
  }
  while (got.load() < n && Clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (got.load() < n) std::fprintf(stderr, "only %d of %d one-way messages arrived\n", got.load(), n);
  const double agent_rate = got.load() / std::chrono::duration<double>(Clock::now() - t0).count();
  const double raw_rate = raw_one_way_per_s(one, n);
  std::printf("one-way, %d messages, delivered with %s (sends refused by backpressure and retried: %llu)\n", n,
              oneway_anon ? "caf::anon_send" : "cluster::deliver",
              (unsigned long long)(ceo->counters().send_failures - refused_before));
  std::printf("  raw zmq + msgpack       %9.0f msg/s\n", raw_rate);
  std::printf("  agent messages          %9.0f msg/s\n", agent_rate);
  std::printf("  ratio %.0f%% (target >= 50%%)\n", 100.0 * agent_rate / raw_rate);

  {
    caf::scoped_actor self{*sys};
    self->send_exit(*emp, caf::exit_reason::user_shutdown);
    self->send_exit(counter, caf::exit_reason::user_shutdown);
  }
  sys.reset();
  placer.reset();
  worker->stop();
  ceo->stop();

  // ---- 3. failure detection, default timeouts
  cluster::ClusterConfig d = two_nodes();
  std::vector<double> detect_ms;
  auto watcher = start(d, "ceo", false);
  d.seeds.push_back(cluster::Seed{watcher->endpoint(), ""});
  std::atomic<int64_t> down_at{0};
  watcher->add_listener([&](const cluster::MembershipEvent& e) {
    if (e.kind == cluster::MembershipEvent::Kind::down && e.node == "worker") down_at = kaisha::steady_ms();
  });
  for (int k = 0; k < kills; ++k) {
    auto victim = start(d, "worker", false);
    if (!wait_alive(*watcher, "worker")) return std::fprintf(stderr, "worker did not join\n"), 1;
    down_at = 0;
    const int64_t killed = kaisha::steady_ms();
    victim->stop();
    while (down_at.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    detect_ms.push_back(double(down_at.load() - killed));
  }
  Stats f = stats(detect_ms);
  const double worst = *std::max_element(detect_ms.begin(), detect_ms.end());
  std::printf("failure detection over %d kills (heartbeat %lld ms, down after %lld ms)\n", kills,
              (long long)d.timeouts.heartbeat_ms, (long long)d.timeouts.down_after_ms);
  std::printf("  p50 %.0f ms  p90 %.0f ms  max %.0f ms (bound 3000 ms)\n", f.p50, f.p90, worst);
  watcher->stop();
  return 0;
}
