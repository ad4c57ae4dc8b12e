// The bounded queue between an agent's threads and a gRPC stream's writer.
#include "protocols/a2a_grpc/a2a_grpc_event_queue.hpp"

#include <gtest/gtest.h>

namespace kaisha::a2a {
namespace {

constexpr std::chrono::milliseconds kNoWait{0};

TEST(GrpcEventQueue, DeliversEventsInOrderThenReportsTheEnd) {
  GrpcEventQueue q(4);
  EXPECT_TRUE(q.push(json(1)));
  EXPECT_TRUE(q.push(json(2)));
  q.close();
  EXPECT_FALSE(q.push(json(3)));  // closed: dropped
  EXPECT_FALSE(q.drained());
  EXPECT_EQ(q.pop(kNoWait), json(1));
  EXPECT_EQ(q.pop(kNoWait), json(2));
  EXPECT_FALSE(q.pop(kNoWait).has_value());
  EXPECT_TRUE(q.drained());
  EXPECT_FALSE(q.overflowed());
}

TEST(GrpcEventQueue, AFullQueueRefusesInsteadOfGrowingAndEndsTheStream) {
  GrpcEventQueue q(2);
  EXPECT_TRUE(q.push(json(1)));
  EXPECT_TRUE(q.push(json(2)));
  EXPECT_FALSE(q.push(json(3)));
  EXPECT_TRUE(q.overflowed());
  EXPECT_FALSE(q.push(json(4)));  // the stream has ended: nothing more is taken
  EXPECT_EQ(q.pop(kNoWait), json(1));
  EXPECT_EQ(q.pop(kNoWait), json(2));
  EXPECT_TRUE(q.drained());
}

TEST(GrpcEventQueue, AnEmptyOpenQueueTimesOutWithoutAnEvent) {
  GrpcEventQueue q(2);
  EXPECT_FALSE(q.pop(std::chrono::milliseconds(1)).has_value());
  EXPECT_FALSE(q.drained());
}

}  // namespace
}  // namespace kaisha::a2a
