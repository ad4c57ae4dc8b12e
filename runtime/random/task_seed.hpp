// The seed every random stream of one task starts from. It is derived from
// the task's id, which a resumed task keeps, so a driver rebuilt to replay
// a task's outcomes draws the same numbers; a user's seed, when given, is
// mixed in, so that the user can ask for different draws on purpose.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kaisha::random {

class TaskSeed {
 public:
  // fnv1a_64(task_id), XORed with the first output of SplitMix64(user_seed)
  // when there is a user seed (so a user seed of 0 differs from none).
  // Throws std::invalid_argument for an empty task id, which would give
  // every such task the same draws.
  explicit TaskSeed(std::string_view task_id, std::optional<uint64_t> user_seed = std::nullopt);

  uint64_t value() const { return value_; }

 private:
  uint64_t value_;
};

}  // namespace kaisha::random
