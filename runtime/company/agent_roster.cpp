#include "runtime/company/agent_roster.hpp"

#include "runtime/hashiru/hashiru_texts.hpp"

namespace kaisha::company {

bool is_valid_agent_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

Status AgentRoster::check_new(const std::string& name) const {
  if (!is_valid_agent_name(name)) return Error{"agent_name", texts::invalid_agent_name(name)};
  if (agents_.count(name)) return Error{"agent_exists", texts::agent_exists(name)};
  return Status::Ok();
}

void AgentRoster::add(msg::AgentSpec spec) {
  std::string name = spec.name;
  agents_[name] = std::move(spec);
}

bool AgentRoster::remove(const std::string& name) { return agents_.erase(name) > 0; }

const msg::AgentSpec* AgentRoster::find(const std::string& name) const {
  auto it = agents_.find(name);
  return it == agents_.end() ? nullptr : &it->second;
}

std::vector<std::string> AgentRoster::names() const {
  std::vector<std::string> out;
  for (const auto& [n, _] : agents_) out.push_back(n);
  return out;
}

json AgentRoster::to_json() const {
  json out = json::object();
  for (const auto& [name, s] : agents_) {
    json a = {
        {"description", s.description}, {"base_model", s.base_model}, {"model_ref", s.model_ref}, {"type", s.type}};
    for (const char* k : {"create_resource_cost", "invoke_resource_cost", "create_expense_cost", "invoke_expense_cost",
                          "output_expense_cost"}) {
      a[k] = s.costs.is_object() && s.costs.contains(k) ? s.costs[k] : json(0);
    }
    out[name] = std::move(a);
  }
  return out;
}

}  // namespace kaisha::company
