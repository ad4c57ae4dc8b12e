// One stream of random bits for one decision of one task: its engine is
// seeded from the task's seed and the decision's key alone, so rebuilding
// the stream (a resumed task replaying its outcomes through a fresh driver)
// gives the same bits, whatever order other streams were made or drawn in.
// Draw numbers from it with the samplers in runtime/random/samplers.hpp,
// never with std distributions, whose algorithms differ between standard
// libraries.
#pragma once

#include <cstdint>

#include "runtime/random/stream_key.hpp"
#include "runtime/random/task_seed.hpp"
#include "runtime/random/xoshiro256_starstar.hpp"

namespace kaisha::random {

class RandomStream {
 public:
  // The engine is xoshiro256** from_seed(SplitMix64(task.value()).next()
  // XOR key.digest()).
  RandomStream(const TaskSeed& task, const StreamKey& key);

  // The next 64 uniformly distributed bits.
  uint64_t next_u64() { return engine_.next(); }

 private:
  Xoshiro256StarStar engine_;
};

}  // namespace kaisha::random
