// A random stream depends on its task's seed and its key, and on nothing
// else: not on which other streams exist, nor on the order they were made or
// drawn in. That is what lets a resumed task replay its outcomes through a
// fresh driver and draw the same numbers.
#include "runtime/random/random_stream.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/core/fnv1a.hpp"

namespace kaisha::random {
namespace {

std::vector<uint64_t> first_draws(RandomStream& stream, int n) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(stream.next_u64());
  return out;
}

std::vector<uint64_t> first_draws(const TaskSeed& task, const StreamKey& key, int n = 64) {
  RandomStream stream(task, key);
  return first_draws(stream, n);
}

std::string what_thrown(void (*make)()) {
  try {
    make();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(TaskSeed, IsTheFnv1aOfTheTaskIdMixedWithTheUserSeed) {
  EXPECT_EQ(TaskSeed("t-golden").value(), fnv1a_64("t-golden"));
  EXPECT_EQ(TaskSeed("t-golden").value(), 10168010520981034763ull);
  EXPECT_EQ(TaskSeed("t-golden", 42).value(), 3515962845615962526ull);
  // A user seed of 0 is a seed like any other, not the absence of one.
  EXPECT_EQ(TaskSeed("t-golden", 0).value(), 8015474449365047972ull);
  EXPECT_NE(TaskSeed("t-golden", 0).value(), TaskSeed("t-golden").value());
}

TEST(TaskSeed, RefusesAnEmptyTaskId) {
  EXPECT_EQ(what_thrown([] { TaskSeed(""); }), "TaskSeed: the task id is empty");
}

TEST(StreamKey, DigestTellsKeysApart) {
  const uint64_t plain = StreamKey("halo.rollout", 3, 1).digest();
  EXPECT_EQ(plain, 15556284896714823486ull);
  EXPECT_NE(StreamKey("halo.rollout", 1, 3).digest(), plain);
  EXPECT_NE(StreamKey("halo.rollout", 3, 1, 0).digest(), plain);
  EXPECT_NE(StreamKey("halo.rollout", 3).digest(), plain);
  EXPECT_NE(StreamKey("halo.rollouts", 3, 1).digest(), plain);
  EXPECT_NE(StreamKey("halo.rollout").digest(), StreamKey("halo.rollout", 0).digest());
  // The name's length is part of the encoding, so a name cannot pass for
  // another name followed by index bytes.
  EXPECT_NE(StreamKey(std::string("a\0\0\0\0\0\0\0\0", 9)).digest(), StreamKey("a", 0).digest());
}

TEST(StreamKey, TakesAnyIntegerIndexModulo2To64) {
  const int iteration = 3;
  const unsigned long long rollout = 1;
  EXPECT_EQ(StreamKey("halo.rollout", iteration, rollout), StreamKey("halo.rollout", std::vector<uint64_t>{3, 1}));
  EXPECT_EQ(StreamKey("x", -1).indices(), std::vector<uint64_t>{~0ull});
}

TEST(StreamKey, RefusesAnEmptyName) {
  EXPECT_EQ(what_thrown([] { StreamKey("", 1); }), "StreamKey: the name is empty (it names what the stream decides)");
}

TEST(RandomStream, FirstDrawsArePinned) {
  RandomStream stream(TaskSeed("t-golden"), StreamKey("halo.rollout", 3, 1));
  EXPECT_EQ(stream.next_u64(), 2618848626753943091ull);
  EXPECT_EQ(stream.next_u64(), 17427666224919309849ull);
  EXPECT_EQ(stream.next_u64(), 4338453890395291633ull);
  EXPECT_EQ(stream.next_u64(), 11678618594653042988ull);
}

TEST(RandomStream, SameTaskAndKeyGiveTheSameSequence) {
  const StreamKey key("halo.rollout", 3, 1);
  EXPECT_EQ(first_draws(TaskSeed("t-1"), key, 1000), first_draws(TaskSeed("t-1"), key, 1000));
  EXPECT_EQ(first_draws(TaskSeed("t-1", 7), key, 1000), first_draws(TaskSeed("t-1", 7), key, 1000));
}

TEST(RandomStream, AnyDifferenceInTaskSeedOrKeyGivesAnotherSequence) {
  const TaskSeed task("t-1");
  const auto base = first_draws(task, StreamKey("halo.rollout", 3, 1));
  EXPECT_NE(first_draws(task, StreamKey("halo.rollout", 3, 2)), base);
  EXPECT_NE(first_draws(task, StreamKey("halo.rollout", 1, 3)), base);
  EXPECT_NE(first_draws(task, StreamKey("hiva.thompson", 3, 1)), base);
  EXPECT_NE(first_draws(TaskSeed("t-2"), StreamKey("halo.rollout", 3, 1)), base);
  EXPECT_NE(first_draws(TaskSeed("t-1", 0), StreamKey("halo.rollout", 3, 1)), base);
  EXPECT_NE(first_draws(TaskSeed("t-1", 1), StreamKey("halo.rollout", 3, 1)),
            first_draws(TaskSeed("t-1", 2), StreamKey("halo.rollout", 3, 1)));
  // No two draws of one stream's first 64 coincide with another's at the
  // same position: the sequences are unrelated, not shifted copies.
  const auto other = first_draws(task, StreamKey("halo.rollout", 3, 2));
  for (size_t i = 0; i < base.size(); ++i) EXPECT_NE(base[i], other[i]) << "draw " << i;
}

TEST(RandomStream, OrderOfMakingAndDrawingStreamsDoesNotMatter) {
  const TaskSeed task("t-order");
  const StreamKey a("halo.rollout", 1, 0), b("halo.rollout", 2, 0);

  // A first, then B.
  RandomStream a1(task, a);
  const auto a_first = first_draws(a1, 100);
  RandomStream b1(task, b);
  const auto b_second = first_draws(b1, 100);

  // B made and drawn first, then A; then both interleaved.
  RandomStream b2(task, b);
  EXPECT_EQ(first_draws(b2, 100), b_second);
  RandomStream a2(task, a);
  EXPECT_EQ(first_draws(a2, 100), a_first);

  RandomStream b3(task, b), a3(task, a);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(b3.next_u64(), b_second[i]) << "draw " << i;
    EXPECT_EQ(a3.next_u64(), a_first[i]) << "draw " << i;
  }
}

}  // namespace
}  // namespace kaisha::random
