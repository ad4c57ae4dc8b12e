#include "runtime/suite/suite_sample.hpp"

#include <algorithm>
#include <numeric>

#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"

namespace kaisha::suite {

std::vector<size_t> sample_indices(size_t total, size_t n, uint64_t seed) {
  std::vector<size_t> all(total);
  std::iota(all.begin(), all.end(), size_t{0});
  if (n >= total) return all;
  random::RandomStream stream(random::TaskSeed("suite-sample", seed), random::StreamKey("sample"));
  for (size_t i = 0; i < n; ++i) {
    const size_t j = i + size_t(random::uniform_below(stream, total - i));
    std::swap(all[i], all[j]);
  }
  all.resize(n);
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace kaisha::suite
