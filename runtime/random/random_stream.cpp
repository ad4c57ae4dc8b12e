#include "runtime/random/random_stream.hpp"

#include "runtime/random/splitmix64.hpp"

namespace kaisha::random {

namespace {

// The task's seed is mixed before the key's digest is XORed in: two FNV-1a
// values of similar texts differ in few bits, and XORing them unmixed would
// let different (task, key) pairs meet more easily.
uint64_t stream_seed(const TaskSeed& task, const StreamKey& key) {
  return SplitMix64(task.value()).next() ^ key.digest();
}

}  // namespace

RandomStream::RandomStream(const TaskSeed& task, const StreamKey& key)
    : engine_(Xoshiro256StarStar::from_seed(stream_seed(task, key))) {}

}  // namespace kaisha::random
