// AgentRoster is the CEO's list of hired employees (HASHIRU's agent
// registry): unique single-word names, the spec each was hired with, and the
// GetAgents view of them. It decides nothing about money; the Budget does.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::company {

// A single word of letters, digits and underscores (hashiru.md §9 item 12).
bool is_valid_agent_name(const std::string& name);

class AgentRoster {
 public:
  // Ok when `name` is valid and not taken; otherwise the exact HASHIRU text.
  Status check_new(const std::string& name) const;
  void add(msg::AgentSpec spec);
  bool remove(const std::string& name);
  const msg::AgentSpec* find(const std::string& name) const;
  std::vector<std::string> names() const;
  size_t size() const { return agents_.size(); }

  // GetAgents output: name → {description, base_model, model_ref, type, and
  // the five cost fields}.
  json to_json() const;

 private:
  std::map<std::string, msg::AgentSpec> agents_;
};

}  // namespace kaisha::company
