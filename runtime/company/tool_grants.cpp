#include "runtime/company/tool_grants.hpp"

#include <algorithm>

#include "runtime/config/management_tools.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::company {
namespace {

// Levenshtein distance, for "did you mean".
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest(const std::string& entry, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, entry.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = distance(entry, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

void add_entries(const std::vector<config::GrantEntry>& list, std::set<std::string>& names,
                 std::set<std::string>& origins) {
  for (const auto& e : list) (is_origin_entry(e.tool) ? origins : names).insert(e.tool);
}

}  // namespace

bool is_origin_entry(const std::string& entry) {
  return entry == "builtin" || entry == "user" || entry == "memory" || entry.rfind("mcp:", 0) == 0;
}

bool GrantedTools::allows(const std::string& name, const std::string& origin) const {
  if (config::is_management_tool(name)) return false;
  if (names_.count(name)) return true;
  return origins_.count(origin) > 0 && !config::needs_grant_by_name(name);
}

std::vector<std::string> GrantedTools::entries() const {
  std::vector<std::string> out(names_.begin(), names_.end());
  out.insert(out.end(), origins_.begin(), origins_.end());
  return out;
}

GrantedTools grant_for(const config::EmployeeGrants& grants, const std::string& agent, const std::string& base_model) {
  std::set<std::string> names, origins;
  add_entries(grants.all, names, origins);
  if (auto it = grants.agents.find(agent); it != grants.agents.end()) add_entries(it->second, names, origins);
  if (auto it = grants.models.find(base_model); it != grants.models.end()) add_entries(it->second, names, origins);
  return GrantedTools(std::move(names), std::move(origins));
}

Status check_grants(const config::EmployeeGrants& grants, const std::map<std::string, std::string>& tools,
                    const std::set<std::string>& origins) {
  std::vector<std::string> grantable;
  for (const auto& [name, origin] : tools)
    if (!config::is_management_tool(name)) grantable.push_back(name);
  auto check = [&](const config::GrantEntry& e) -> Status {
    if (config::is_management_tool(e.tool))
      return Error{"config",
                   e.where + ": '" + e.tool + "' is a management tool of the CEO; employees can never use it"};
    if (is_origin_entry(e.tool)) {
      if (origins.count(e.tool)) return Status::Ok();
      std::string known;
      for (const auto& o : origins) known += (known.empty() ? "" : ", ") + o;
      return Error{"config", e.where + ": no tool source '" + e.tool + "' (sources: " + known + ")"};
    }
    if (tools.count(e.tool)) return Status::Ok();
    std::string msg = e.where + ": unknown tool '" + e.tool + "'";
    if (std::string c = closest(e.tool, grantable); !c.empty()) msg += " (did you mean '" + c + "'?)";
    json list = grantable;
    return Error{"config", msg + "; tools: " + list.dump() + " (an MCP server's tools: grant mcp:<server>)"};
  };
  for (const auto& e : grants.all)
    if (Status s = check(e); !s.ok()) return s;
  for (const auto* by : {&grants.agents, &grants.models})
    for (const auto& [_, list] : *by)
      for (const auto& e : list)
        if (Status s = check(e); !s.ok()) return s;
  return Status::Ok();
}

}  // namespace kaisha::company
