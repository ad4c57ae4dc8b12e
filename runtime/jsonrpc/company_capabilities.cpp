#include "runtime/jsonrpc/company_capabilities.hpp"

namespace kaisha::jsonrpc {

std::vector<CapabilityDescriptor> company_capabilities(const json& agents, const std::string& strategy) {
  std::vector<CapabilityDescriptor> out;
  CapabilityDescriptor whole;
  whole.kind = CapabilityKind::agent;
  whole.name = "company";
  whole.title = "Company task";
  whole.description = "Send a task in plain text; the company's agents work on it and answer.";
  whole.tags = {"company"};
  if (!strategy.empty()) whole.tags.push_back(strategy);
  out.push_back(std::move(whole));
  if (!agents.is_object()) return out;
  for (const auto& [name, a] : agents.items()) {
    CapabilityDescriptor d;
    d.kind = CapabilityKind::agent;
    d.name = name;
    if (a.is_object()) {
      d.description = a.value("description", std::string());
      d.tags = {"employee", a.value("type", std::string("local"))};
      json costs = json::object();
      for (const char* k : {"create_resource_cost", "invoke_resource_cost", "create_expense_cost",
                            "invoke_expense_cost", "output_expense_cost"})
        if (a.contains(k)) costs[k] = a[k];
      if (!costs.empty()) d.costs = std::move(costs);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kaisha::jsonrpc
