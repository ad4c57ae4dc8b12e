// RefusalCounts: how many inbound envelopes a node refused, per kind of
// refusal ("not_a_node", "unlisted_node", ...), for `kaisha cluster status`.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace kaisha::cluster {

class RefusalCounts {
 public:
  // Counts one refusal of `kind`; returns how many there were of it so far.
  uint64_t add(const std::string& kind) {
    std::lock_guard<std::mutex> g(mu_);
    return ++counts_[kind];
  }
  std::map<std::string, uint64_t> snapshot() const {
    std::lock_guard<std::mutex> g(mu_);
    return counts_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> counts_;
};

}  // namespace kaisha::cluster
