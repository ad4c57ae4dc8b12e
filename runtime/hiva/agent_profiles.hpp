// The knowledge profiles (keywords and embedding, routing/knowledge_cost.hpp)
// of the agents' prompts, kept between tasks: an agent's profile changes only
// when its prompt or tool description does, and building one (tokenising,
// embedding) is most of a routing decision's work. Shared by the drivers of
// one strategy, which may run on different threads: thread-safe. Bounded: at
// `capacity` profiles it starts afresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "runtime/hiva/routing/knowledge_cost.hpp"

namespace kaisha::hiva {

class AgentProfiles {
 public:
  explicit AgentProfiles(size_t capacity = 4096) : capacity_(capacity) {}

  // The profile of an agent with this prompt and tool description, built with
  // `embed` the first time it is asked for.
  AgentProfile get(const std::string& prompt, const std::string& tool_description, const Embed& embed);
  // Whether that profile is kept already.
  bool has(const std::string& prompt, const std::string& tool_description);

 private:
  std::optional<AgentProfile> find(const std::string& prompt, const std::string& tool_description);
  struct Entry {
    std::string prompt, tool_description;  // the key, kept to rule out a hash collision
    AgentProfile profile;
  };
  const size_t capacity_;
  std::mutex mu_;
  std::unordered_map<uint64_t, Entry> profiles_;
};

}  // namespace kaisha::hiva
