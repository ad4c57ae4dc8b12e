// Employee tool grants (config employee.tools): which tools one employee may
// call. A grant entry is a tool name (Calculator) or a whole source by its
// origin (builtin, user, memory, mcp:<server>); an employee gets the union of
// the `all` list, the list for its name and the list for its base model.
//
// Whatever a grant says, an employee never gets a management tool
// (config/management_tools.hpp: hiring, asking, firing, budget, tool
// creation), and MemoryManager only when it is named. An empty grant means no tools: the
// employee answers with a single model call, as HASHIRU's do.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::company {

class GrantedTools {
 public:
  GrantedTools() = default;
  GrantedTools(std::set<std::string> names, std::set<std::string> origins)
      : names_(std::move(names)), origins_(std::move(origins)) {}

  bool empty() const { return names_.empty() && origins_.empty(); }
  // Whether tool `name`, offered by the source `origin`, is granted.
  bool allows(const std::string& name, const std::string& origin) const;
  // The entries as configured, names then sources, for journals and errors.
  std::vector<std::string> entries() const;

 private:
  std::set<std::string> names_;
  std::set<std::string> origins_;
};

// Whether a grant entry names a source rather than a tool.
bool is_origin_entry(const std::string& entry);

// The grant of employee `agent` hired on cost-table model `base_model`.
GrantedTools grant_for(const config::EmployeeGrants& grants, const std::string& agent, const std::string& base_model);

// Checks that every entry names an existing tool (`tools`: name -> origin of
// every tool the sources offer now) or an existing source (`origins`).
// The error names the config place: "<file>:<line>: employee.tools.all[0]:
// unknown tool 'Calculater' (did you mean 'Calculator'?); tools: [...]".
Status check_grants(const config::EmployeeGrants& grants, const std::map<std::string, std::string>& tools,
                    const std::set<std::string>& origins);

}  // namespace kaisha::company
