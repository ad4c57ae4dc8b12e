// The time budget an envelope carries across machines, and the envelope
// versions a node reads (1: epoch deadline only; 2: relative budget).
#include <gtest/gtest.h>

#include <msgpack.hpp>

#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/messages/time_budget.hpp"

namespace kaisha::msg {
namespace {

TEST(TimeBudget, TheReceiverCountsTheBudgetOnItsOwnSteadyClock) {
  Envelope e = wrap(AskRequest{}, {"a", "CEO"}, {"b", "Poet"}, "m1");
  // The sender's wall clock is far off the receiver's: it does not matter.
  set_time_budget(e, 5000, /*wall_now_ms=*/1'000);
  auto back = decode_envelope(encode(e));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->envelope_version, kEnvelopeVersion);
  EXPECT_EQ(back->budget_ms, 5000);
  EXPECT_EQ(back->deadline_ms, 6000);  // still there for version-1 readers
  EXPECT_EQ(receive_deadline(*back, /*steady_now_ms=*/70'000, /*wall_now_ms=*/9'999'999'999), 75'000);
}

TEST(TimeBudget, NoBudgetMeansNoDeadline) {
  Envelope e = wrap(AskRequest{}, {}, {}, "m1");
  set_time_budget(e, 0, 1'000);
  EXPECT_EQ(e.deadline_ms, 0);
  EXPECT_EQ(receive_deadline(e, 70'000, 1'000), 0);
}

// A version-1 envelope is written by hand: the fields an older build sends.
std::string version_one_envelope(int64_t deadline_ms) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(5);
  pk.pack(std::string("envelope_version"));
  pk.pack(1);
  pk.pack(std::string("id"));
  pk.pack(std::string("m1"));
  pk.pack(std::string("type"));
  pk.pack(std::string(AskRequest::kType));
  pk.pack(std::string("deadline_ms"));
  pk.pack(deadline_ms);
  pk.pack(std::string("payload"));
  pk.pack(encode(AskRequest{}));
  return std::string(buf.data(), buf.size());
}

TEST(TimeBudget, AVersionOneEpochDeadlineIsTurnedIntoABudgetOnArrival) {
  auto e = decode_envelope(version_one_envelope(/*deadline_ms=*/1'000'000 + 3000));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->envelope_version, 1u);
  EXPECT_EQ(e->budget_ms, 0);
  EXPECT_EQ(receive_deadline(*e, /*steady_now_ms=*/500, /*wall_now_ms=*/1'000'000), 3500);
  // Already past on arrival: the deadline is now.
  EXPECT_EQ(receive_deadline(*e, 500, 2'000'000), 500);
}

TEST(TimeBudget, AnEnvelopeVersionFromTheFutureIsRefusedClearly) {
  Envelope e = wrap(AskRequest{}, {}, {}, "m1");
  e.envelope_version = kEnvelopeVersion + 1;
  auto r = decode_envelope(encode(e));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "version");
  EXPECT_NE(r.error().message.find("envelope version " + std::to_string(kEnvelopeVersion + 1) + " is not supported"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace kaisha::msg
