#include "runtime/hiva/agent_profiles.hpp"

#include "runtime/core/fnv1a.hpp"

namespace kaisha::hiva {

AgentProfile AgentProfiles::get(const std::string& prompt, const std::string& tool_description, const Embed& embed) {
  const uint64_t key = fnv1a_64(fnv1a_64(prompt), std::string(1, '\0') + tool_description);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = profiles_.find(key);
    if (it != profiles_.end() && it->second.prompt == prompt && it->second.tool_description == tool_description)
      return it->second.profile;
  }
  // Built outside the lock: two drivers may build the same profile once each.
  AgentProfile p = profile_of(prompt, tool_description, embed);
  std::lock_guard<std::mutex> lock(mu_);
  if (profiles_.size() >= capacity_) profiles_.clear();
  profiles_[key] = Entry{prompt, tool_description, p};
  return p;
}

}  // namespace kaisha::hiva
