#include "runtime/llm/sse_event_reader.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kaisha::llm {
namespace {

TEST(SseEventReader, KeepsTheLastIdAndRetryAcrossSplitChunks) {
  SseEventReader r;
  std::vector<SseMessage> got;
  auto on = [&](const SseMessage& m) { got.push_back(m); };
  r.feed("id: e-1\r\nretry: 50", on);
  r.feed("0\ndata: \n\n: heartbeat\n\nevent: message\nid: e-2\ndata: {\"a\":", on);
  EXPECT_EQ(got.size(), 1u);  // the priming event
  r.feed("1}\n\n", on);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].data, "");
  EXPECT_EQ(got[0].id, "e-1");
  EXPECT_EQ(got[1].event, "message");
  EXPECT_EQ(got[1].data, "{\"a\":1}");
  EXPECT_EQ(r.last_event_id(), "e-2");
  ASSERT_TRUE(r.retry_ms().has_value());
  EXPECT_EQ(*r.retry_ms(), 500);
}

TEST(SseEventReader, IgnoresAnInvalidRetryAndJoinsDataLines) {
  SseEventReader r;
  std::vector<SseMessage> got;
  r.feed("retry: soon\ndata: a\ndata: b\n\n", [&](const SseMessage& m) { got.push_back(m); });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, "a\nb");
  EXPECT_FALSE(r.retry_ms().has_value());
}

}  // namespace
}  // namespace kaisha::llm
