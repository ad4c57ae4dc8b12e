// Gateway over real tcp sockets on 127.0.0.1 (ephemeral ports), plaintext.
// CURVE is covered in gateway_security_test.cpp.
#include "transport/gateway.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>
#include <zmq.hpp>

#include "runtime/messages/codec.hpp"
#include "tests/transport/test_support.hpp"
#include "tests/time_scale.hpp"

namespace kaisha::transport {
namespace {

using namespace std::chrono_literals;
using testing::Inbox;
using testing::make_envelope;
using testing::plaintext_options;
using testing::wait_until;

TEST(Gateway, TwoGatewaysExchangeEnvelopesBothWays) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a;
  Gateway a, b;
  at_a.attach(a);
  // B answers every request through its own DEALER to A, as an actor would.
  b.on_receive([&b](msg::Envelope req) {
    auto reply = make_envelope("r-" + req.id, "b", req.from.node, "answer to " + req.payload, "ask_reply", req.id);
    ASSERT_TRUE(b.send(req.from.node, reply).ok());
  });
  auto ea = a.start(plaintext_options("a"));
  auto eb = b.start(plaintext_options("b"));
  ASSERT_TRUE(ea.ok()) << ea.error().message;
  ASSERT_TRUE(eb.ok()) << eb.error().message;
  EXPECT_NE(ea->find("tcp://127.0.0.1:"), std::string::npos);
  EXPECT_EQ(ea->find(":0"), std::string::npos) << "the real port is returned: " << *ea;
  ASSERT_TRUE(a.connect("b", *eb).ok());
  ASSERT_TRUE(b.connect("a", *ea).ok());

  std::string payload("\x00\x01binary\xff", 9);
  auto st = a.send("b", make_envelope("q1", "a", "b", payload));
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_TRUE(wait_until([&] { return at_a.size() == 1; }));
  auto got = at_a.items()[0];
  EXPECT_EQ(got.id, "r-q1");
  EXPECT_EQ(got.type, "ask_reply");
  EXPECT_EQ(got.correlation, "q1");
  EXPECT_EQ(got.payload, "answer to " + payload);
  EXPECT_EQ(got.from, (msg::AgentRef{"b", "CEO"}));
  EXPECT_EQ(got.to, (msg::AgentRef{"a", "RiverPoet"}));
  EXPECT_EQ(got.trace, "trace-1");
  EXPECT_EQ(got.deadline_ms, 1234);
  EXPECT_EQ(a.counters().sent, 1u);
  EXPECT_EQ(b.counters().received, 1u);
  EXPECT_EQ(b.counters().sent, 1u);
  EXPECT_EQ(a.counters().received, 1u);
}

TEST(Gateway, TenThousandMessagesArriveInOrder) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_b;
  Gateway a, b;
  at_b.attach(b);
  auto oa = plaintext_options("a");
  oa.send_hwm = 20000;  // this test measures ordering, not backpressure
  auto ob = plaintext_options("b");
  ob.recv_hwm = 20000;
  ASSERT_TRUE(a.start(oa).ok());
  auto eb = b.start(ob);
  ASSERT_TRUE(eb.ok());
  ASSERT_TRUE(a.connect("b", *eb).ok());
  constexpr int kCount = 10000;
  for (int i = 0; i < kCount; ++i) {
    auto st = a.send("b", make_envelope(std::to_string(i), "a", "b"));
    ASSERT_TRUE(st.ok()) << i << ": " << st.error().message;
  }
  ASSERT_TRUE(wait_until([&] { return at_b.size() == kCount; }, 60s)) << at_b.size();
  auto items = at_b.items();
  for (int i = 0; i < kCount; ++i) ASSERT_EQ(items[static_cast<size_t>(i)].id, std::to_string(i));
  EXPECT_EQ(a.counters().send_failures, 0u);
}

TEST(Gateway, MalformedFramesAreCountedDroppedAndServingContinues) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox inbox;
  Gateway g;
  inbox.attach(g);
  std::vector<std::string> logged;
  std::mutex log_mu;
  auto o = plaintext_options("g");
  o.max_frame_bytes = 4096;
  o.log = [&](std::string_view s) {
    std::lock_guard<std::mutex> l(log_mu);
    logged.emplace_back(s);
  };
  auto ep = g.start(o);
  ASSERT_TRUE(ep.ok());

  zmq::context_t ctx(1);
  zmq::socket_t raw(ctx, zmq::socket_type::push);
  raw.set(zmq::sockopt::linger, 1000);
  raw.set(zmq::sockopt::sndtimeo, 2000);
  raw.connect(*ep);
  auto send = [&](const std::string& bytes) { ASSERT_TRUE(raw.send(zmq::buffer(bytes), zmq::send_flags::none)); };
  std::string good = msg::encode(make_envelope("ok-1", "raw", "g"));
  send(std::string("\xff\x00 garbage \x13", 12));  // not a map
  send(good.substr(0, good.size() - 7));           // truncated msgpack
  auto v3 = make_envelope("v3", "raw", "g");
  v3.envelope_version = msg::kEnvelopeVersion + 1;
  send(msg::encode(v3));  // unknown envelope version
  auto noid = make_envelope("", "raw", "g");
  send(msg::encode(noid));                                             // missing id
  ASSERT_TRUE(raw.send(zmq::buffer(good), zmq::send_flags::sndmore));  // two frames
  send(good);
  send(good);  // and a good one: still served

  ASSERT_TRUE(wait_until([&] { return inbox.size() == 1; }));
  EXPECT_EQ(inbox.items()[0].id, "ok-1");
  auto c = g.counters();
  EXPECT_EQ(c.received, 1u);
  EXPECT_EQ(c.dropped_malformed, 4u);
  EXPECT_EQ(c.dropped_version, 1u);
  EXPECT_EQ(c.dropped_oversized, 0u);
  std::lock_guard<std::mutex> l(log_mu);
  ASSERT_EQ(logged.size(), 5u);
  bool saw_version = false;
  for (auto& s : logged)
    saw_version |= s.find("envelope version " + std::to_string(msg::kEnvelopeVersion + 1)) != std::string::npos;
  EXPECT_TRUE(saw_version);
}

// ZMQ_MAXMSGSIZE: libzmq reads the size from the frame header and cuts the
// peer off before reading the body, so an oversized frame never reaches the
// gateway (nor its memory); other peers are served on.
TEST(Gateway, AnOversizedFrameCutsItsPeerOffAndServingContinues) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox inbox;
  Gateway g;
  inbox.attach(g);
  auto o = plaintext_options("g");
  o.max_frame_bytes = 64 * 1024;
  o.log = [](std::string_view) {};
  auto ep = g.start(o);
  ASSERT_TRUE(ep.ok());

  zmq::context_t ctx(1);
  zmq::socket_t big(ctx, zmq::socket_type::push);
  big.set(zmq::sockopt::linger, 0);
  big.set(zmq::sockopt::reconnect_ivl, 60000);  // stays cut off for the test's length
  const std::string mon_ep = "inproc://oversized-sender-monitor";
  ASSERT_EQ(zmq_socket_monitor(big.handle(), mon_ep.c_str(), ZMQ_EVENT_DISCONNECTED), 0);
  zmq::socket_t mon(ctx, zmq::socket_type::pair);
  mon.connect(mon_ep);
  big.connect(*ep);
  msg::Envelope huge = make_envelope("huge", "big", "g", std::string(8u << 20, 'x'));
  ASSERT_TRUE(big.send(zmq::buffer(msg::encode(huge)), zmq::send_flags::none));
  mon.set(zmq::sockopt::rcvtimeo, 10000);
  zmq::message_t event;
  ASSERT_TRUE(mon.recv(event)) << "the sender of an oversized frame is disconnected";

  Gateway other;
  ASSERT_TRUE(other.start(plaintext_options("other")).ok());
  ASSERT_TRUE(other.connect("g", *ep).ok());
  ASSERT_TRUE(other.send("g", make_envelope("after", "other", "g")).ok());
  ASSERT_TRUE(wait_until([&] { return inbox.size() == 1; }));
  EXPECT_EQ(inbox.items()[0].id, "after");
  EXPECT_TRUE(wait_until([&] { return g.counters().inbound_closed >= 1; }));
  EXPECT_EQ(g.counters().dropped_oversized, 0u);  // never read, so never seen
}

TEST(Gateway, SendToUnknownPeerFailsImmediately) {
  Gateway g;
  ASSERT_TRUE(g.start(plaintext_options("g")).ok());
  auto t0 = std::chrono::steady_clock::now();
  auto st = g.send("nobody", make_envelope("x", "g", "nobody"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 100ms);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "unknown_peer");
  EXPECT_NE(st.error().message.find("'nobody'"), std::string::npos);
}

TEST(Gateway, OversizedOutboundEnvelopeIsRefusedUpFront) {
  Gateway a, b;
  auto o = plaintext_options("a");
  o.max_frame_bytes = 1024;
  ASSERT_TRUE(a.start(o).ok());
  auto eb = b.start(plaintext_options("b"));
  ASSERT_TRUE(a.connect("b", *eb).ok());
  auto st = a.send("b", make_envelope("big", "a", "b", std::string(2000, 'x')));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "too_large");
}

TEST(Gateway, FullPeerQueueIsReportedToTheSenderNotDropped) {
  // A peer that never reads: a raw PULL with tiny buffers.
  zmq::context_t ctx(1);
  zmq::socket_t sink(ctx, zmq::socket_type::pull);
  sink.set(zmq::sockopt::rcvhwm, 1);
  sink.set(zmq::sockopt::rcvbuf, 4096);
  sink.set(zmq::sockopt::linger, 0);
  sink.bind("tcp://127.0.0.1:*");
  std::string sink_ep = sink.get(zmq::sockopt::last_endpoint);

  Gateway g;
  auto o = plaintext_options("g");
  o.send_hwm = 2;
  o.linger_ms = 100;
  ASSERT_TRUE(g.start(o).ok());
  ASSERT_TRUE(g.connect("sink", sink_ep).ok());

  constexpr int kCount = 300;  // 75 MiB: far more than loopback socket buffers hold
  std::string payload(256 * 1024, 'p');
  auto t0 = std::chrono::steady_clock::now();
  int accepted = 0;
  std::vector<Error> refusals;
  std::vector<std::string> refused_ids;
  for (int i = 0; i < kCount; ++i) {
    const std::string id = "m" + std::to_string(i);
    auto st = g.send("sink", make_envelope(id, "g", "sink", payload));
    if (st.ok()) {
      ++accepted;
    } else {
      refusals.push_back(st.error());
      refused_ids.push_back(id);
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, kaisha::testing::scaled(5s))
      << "send() must not block on a full peer";
  // Every envelope is either queued to the peer or refused to its sender at
  // once: none vanishes.
  ASSERT_FALSE(refusals.empty());
  EXPECT_GT(accepted, 0);
  EXPECT_EQ(refusals[0].code, "backpressure");
  EXPECT_NE(refusals[0].message.find("send_hwm 2"), std::string::npos) << refusals[0].message;
  // Each refusal names the envelope it refused (which ones are refused
  // depends on how fast the kernel drains the peer's buffer).
  for (size_t i = 0; i < refusals.size(); ++i)
    EXPECT_NE(refusals[i].message.find(refused_ids[i]), std::string::npos) << refusals[i].message;
  auto c = g.counters();
  EXPECT_EQ(c.sent, static_cast<uint64_t>(accepted));
  EXPECT_EQ(c.send_failures, refusals.size());
}

TEST(Gateway, StopWithMessagesInFlightReturnsPromptly) {
  Gateway g;
  auto o = plaintext_options("g");
  o.linger_ms = 200;
  o.send_hwm = 100000;
  ASSERT_TRUE(g.start(o).ok());
  // Nothing listens on port 1, so everything queues for a peer that never comes.
  ASSERT_TRUE(g.connect("ghost", "tcp://127.0.0.1:1").ok());
  int accepted = 0;
  for (int i = 0; i < 5000; ++i)
    if (g.send("ghost", make_envelope(std::to_string(i), "g", "ghost", std::string(1024, 'x'))).ok()) ++accepted;
  EXPECT_EQ(accepted, 5000);
  auto t0 = std::chrono::steady_clock::now();
  g.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  auto c = g.counters();
  EXPECT_EQ(c.sent, static_cast<uint64_t>(accepted));
  EXPECT_EQ(c.send_failures, 0u);
  EXPECT_FALSE(g.running());
  auto st = g.send("ghost", make_envelope("late", "g", "ghost"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("not running"), std::string::npos);
  g.stop();  // idempotent
}

// A gateway speaks only as its own node (with CURVE the receiver checks the
// name against the key as well: gateway_security_test).
TEST(Gateway, AnEnvelopeNamingAnotherSenderIsRefusedBySend) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_b;
  Gateway a, b;
  at_b.attach(b);
  ASSERT_TRUE(a.start(plaintext_options("a")).ok());
  auto eb = b.start(plaintext_options("b"));
  ASSERT_TRUE(eb.ok());
  ASSERT_TRUE(a.connect("b", *eb).ok());
  auto forged = a.send("b", make_envelope("forged", "ceo", "b"));  // a pretends to be "ceo"
  ASSERT_FALSE(forged.ok());
  EXPECT_NE(forged.error().message.find("not this node 'a'"), std::string::npos) << forged.error().message;
  ASSERT_TRUE(a.send("b", make_envelope("honest", "a", "b")).ok());
  ASSERT_TRUE(wait_until([&] { return at_b.size() == 1; }));
  EXPECT_EQ(at_b.items()[0].id, "honest");
  EXPECT_EQ(b.counters().received, 1u);
}

TEST(Gateway, ConcurrentSendersKeepTheirOwnOrder) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_b;
  Gateway a, b;
  at_b.attach(b);
  auto oa = plaintext_options("a");
  oa.send_hwm = 10000;
  auto ob = plaintext_options("b");
  ob.recv_hwm = 10000;
  ASSERT_TRUE(a.start(oa).ok());
  auto eb = b.start(ob);
  ASSERT_TRUE(a.connect("b", *eb).ok());
  constexpr int kThreads = 4, kEach = 1000;
  std::atomic<int> refused{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t)
    senders.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i)
        if (!a.send("b", make_envelope(std::to_string(t) + ":" + std::to_string(i), "a", "b")).ok()) ++refused;
    });
  for (auto& th : senders) th.join();
  EXPECT_EQ(refused.load(), 0);
  ASSERT_TRUE(wait_until([&] { return at_b.size() == kThreads * kEach; }, 30s)) << at_b.size();
  std::vector<int> next(kThreads, 0);
  for (auto& e : at_b.items()) {
    int t = std::stoi(e.id.substr(0, e.id.find(':')));
    int i = std::stoi(e.id.substr(e.id.find(':') + 1));
    ASSERT_EQ(i, next[static_cast<size_t>(t)]) << "sender " << t;
    ++next[static_cast<size_t>(t)];
  }
}

TEST(Gateway, AThrowingReceiverDoesNotStopTheGateway) {
  Gateway a, b;
  std::atomic<int> calls{0};
  b.on_receive([&](msg::Envelope) {
    ++calls;
    throw std::runtime_error("actor bug");
  });
  ASSERT_TRUE(a.start(plaintext_options("a")).ok());
  auto eb = b.start(plaintext_options("b"));
  ASSERT_TRUE(a.connect("b", *eb).ok());
  ASSERT_TRUE(a.send("b", make_envelope("1", "a", "b")).ok());
  ASSERT_TRUE(a.send("b", make_envelope("2", "a", "b")).ok());
  ASSERT_TRUE(wait_until([&] { return calls.load() == 2; }));
  EXPECT_TRUE(b.running());
}

TEST(Gateway, ConnectErrorsAreClear) {
  Gateway g;
  EXPECT_FALSE(g.connect("b", "tcp://127.0.0.1:5").ok()) << "not started";
  auto ep = g.start(plaintext_options("g"));
  ASSERT_TRUE(ep.ok());
  auto bad = g.connect("b", "tcp://127.0.0.1:notaport");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'b'"), std::string::npos);
  ASSERT_TRUE(g.connect("b", *ep).ok());
  EXPECT_FALSE(g.connect("b", *ep).ok()) << "already connected";
  EXPECT_FALSE(g.start(plaintext_options("g")).ok()) << "already started";
}

}  // namespace
}  // namespace kaisha::transport
