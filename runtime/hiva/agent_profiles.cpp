#include "runtime/hiva/agent_profiles.hpp"

#include "runtime/core/fnv1a.hpp"

namespace kaisha::hiva {

namespace {
uint64_t key_of(const std::string& prompt, const std::string& tool_description) {
  return fnv1a_64(fnv1a_64(prompt), std::string(1, '\0') + tool_description);
}
}  // namespace

std::optional<AgentProfile> AgentProfiles::find(const std::string& prompt, const std::string& tool_description) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = profiles_.find(key_of(prompt, tool_description));
  if (it != profiles_.end() && it->second.prompt == prompt && it->second.tool_description == tool_description)
    return it->second.profile;
  return std::nullopt;
}

bool AgentProfiles::has(const std::string& prompt, const std::string& tool_description) {
  return find(prompt, tool_description).has_value();
}

AgentProfile AgentProfiles::get(const std::string& prompt, const std::string& tool_description, const Embed& embed) {
  const uint64_t key = key_of(prompt, tool_description);
  if (auto kept = find(prompt, tool_description)) return *kept;
  // Built outside the lock: two drivers may build the same profile once each.
  AgentProfile p = profile_of(prompt, tool_description, embed);
  std::lock_guard<std::mutex> lock(mu_);
  if (profiles_.size() >= capacity_) profiles_.clear();
  profiles_[key] = Entry{prompt, tool_description, p};
  return p;
}

}  // namespace kaisha::hiva
