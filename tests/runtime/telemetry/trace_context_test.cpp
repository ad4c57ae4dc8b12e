// TraceContext and the W3C traceparent header: the round trip, every way a
// header is rejected, and the random ids.
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

#include "runtime/telemetry/trace_context.hpp"

namespace kaisha::telemetry {
namespace {

constexpr const char* kTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kSpan = "00f067aa0ba902b7";
constexpr const char* kHeader = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceContext, FormatsTheW3CExample) {
  EXPECT_EQ(format_traceparent({kTrace, kSpan, true}), kHeader);
  EXPECT_EQ(format_traceparent({kTrace, kSpan, false}), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
}

TEST(TraceContext, ParsesTheW3CExample) {
  auto c = parse_traceparent(kHeader);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->trace_id, kTrace);
  EXPECT_EQ(c->span_id, kSpan);
  EXPECT_TRUE(c->sampled);
  auto unsampled = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  ASSERT_TRUE(unsampled.has_value());
  EXPECT_FALSE(unsampled->sampled);
}

TEST(TraceContext, RoundTripsFreshContexts) {
  for (bool sampled : {true, false}) {
    const TraceContext c = TraceContext::new_root(sampled);
    auto back = parse_traceparent(format_traceparent(c));
    ASSERT_TRUE(back.has_value()) << format_traceparent(c);
    EXPECT_EQ(back->trace_id, c.trace_id);
    EXPECT_EQ(back->span_id, c.span_id);
    EXPECT_EQ(back->sampled, sampled);
  }
}

TEST(TraceContext, SampledIsBitZeroOfTheFlags) {
  // Other flag bits are reserved: kept out of `sampled`, not a reason to reject.
  auto c = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->sampled);
  auto d = parse_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02");
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->sampled);
}

TEST(TraceContext, TrimsSpacesAroundTheHeaderValue) {
  EXPECT_TRUE(parse_traceparent(std::string(" \t") + kHeader + " ").has_value());
}

TEST(TraceContext, AcceptsAFutureVersionWithMoreFields) {
  // W3C: a parser that knows version 00 reads a later version's first four
  // fields and ignores what follows a dash.
  auto c = parse_traceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->trace_id, kTrace);
  EXPECT_TRUE(parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").has_value());
}

struct Rejected {
  const char* why;
  std::string header;
};

TEST(TraceContext, RejectsEveryMalformedHeader) {
  const std::string ok = kHeader;
  const std::vector<Rejected> cases = {
      {"empty", ""},
      {"one character short", ok.substr(0, ok.size() - 1)},
      {"version 00 with a trailing field", ok + "-00"},
      {"version 00 one character long", ok + "0"},
      {"version ff", "ff" + ok.substr(2)},
      {"uppercase version", "0A" + ok.substr(2)},
      {"non-hex version", "0g" + ok.substr(2)},
      {"future version extended without a dash", "cc" + ok.substr(2) + "x"},
      {"uppercase trace id", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"},
      {"uppercase span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01"},
      {"uppercase flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A"},
      {"non-hex trace id", "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01"},
      {"non-hex span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01"},
      {"non-hex flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x"},
      {"all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
      {"all-zero span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"},
      {"short trace id", "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"},
      {"long span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b77-1"},
      {"underscores for dashes", "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01"},
      {"a dash moved", "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01"},
      {"one-digit flags", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1"},
  };
  for (const auto& c : cases) EXPECT_FALSE(parse_traceparent(c.header).has_value()) << c.why << ": " << c.header;
  // The unchanged header passes, so each case above fails for its own reason.
  EXPECT_TRUE(parse_traceparent(ok).has_value());
}

TEST(TraceContext, FreshIdsAreLowercaseHexOfTheRightLength) {
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(valid_hex_id(new_trace_id(), 32));
    EXPECT_TRUE(valid_hex_id(new_span_id(), 16));
  }
  EXPECT_TRUE(TraceContext::new_root().valid());
  EXPECT_FALSE((TraceContext{"abc", kSpan, true}.valid()));
  EXPECT_FALSE((TraceContext{std::string(32, '0'), kSpan, true}.valid()));
}

TEST(TraceContext, FreshIdsDoNotRepeatAcrossThreads) {
  // Each thread seeds its own generator; two seeded alike would repeat ids.
  std::vector<std::vector<std::string>> per_thread(4);
  std::vector<std::thread> threads;
  for (auto& ids : per_thread)
    threads.emplace_back([&ids] {
      for (int i = 0; i < 500; ++i) ids.push_back(new_span_id());
    });
  for (auto& t : threads) t.join();
  std::set<std::string> all;
  for (const auto& ids : per_thread) all.insert(ids.begin(), ids.end());
  EXPECT_EQ(all.size(), 2000u);
}

TEST(TraceContext, AChildKeepsTheTraceAndGetsANewSpan) {
  const TraceContext parent = TraceContext::new_root(false);
  const TraceContext child = parent.child();
  EXPECT_EQ(child.trace_id, parent.trace_id);
  EXPECT_NE(child.span_id, parent.span_id);
  EXPECT_TRUE(valid_hex_id(child.span_id, 16));
  EXPECT_FALSE(child.sampled);  // the sampling decision is inherited
}

TEST(TraceContext, ADerivedContextDependsOnItsSeedAlone) {
  const TraceContext a = derived_context("t-20261129-041104-e367c669");
  const TraceContext b = derived_context("t-20261129-041104-e367c669");
  const TraceContext other = derived_context("t-20261129-041104-e367c66a");
  EXPECT_TRUE(a.valid());
  EXPECT_EQ(a.trace_id, b.trace_id);
  EXPECT_EQ(a.span_id, b.span_id);
  EXPECT_NE(a.trace_id, other.trace_id);
  EXPECT_NE(a.span_id, other.span_id);
  EXPECT_TRUE(derived_context("").valid());
  EXPECT_TRUE(derived_context("日本語 🚀").valid());
}

}  // namespace
}  // namespace kaisha::telemetry
