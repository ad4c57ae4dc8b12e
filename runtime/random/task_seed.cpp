#include "runtime/random/task_seed.hpp"

#include <stdexcept>

#include "runtime/core/fnv1a.hpp"
#include "runtime/random/splitmix64.hpp"

namespace kaisha::random {

TaskSeed::TaskSeed(std::string_view task_id, std::optional<uint64_t> user_seed) {
  if (task_id.empty()) throw std::invalid_argument("TaskSeed: the task id is empty");
  value_ = fnv1a_64(task_id);
  if (user_seed) value_ ^= SplitMix64(*user_seed).next();
}

}  // namespace kaisha::random
