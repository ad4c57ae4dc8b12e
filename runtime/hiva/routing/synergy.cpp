#include "runtime/hiva/routing/synergy.hpp"

#include <algorithm>

namespace kaisha::hiva {

double team_synergy(const std::vector<std::string>& team, const SynergyLookup& lookup,
                    const SynergySettings& settings) {
  std::vector<std::string> members;
  for (const std::string& id : team) {
    if (std::find(members.begin(), members.end(), id) == members.end()) members.push_back(id);
  }
  if (members.size() <= 1) return settings.singleton;
  double sum = 0.0;
  for (const std::string& from : members) {
    for (const std::string& to : members) {
      if (from == to) continue;
      const std::optional<double> c = lookup ? lookup(from, to) : std::nullopt;
      sum += c.value_or(settings.missing_edge);
    }
  }
  const double pairs = static_cast<double>(members.size()) * static_cast<double>(members.size() - 1);
  return sum / pairs;
}

SynergyLookup synergy_table(std::map<std::pair<std::string, std::string>, double> table) {
  return [table = std::move(table)](const std::string& from, const std::string& to) -> std::optional<double> {
    const auto it = table.find({from, to});
    if (it == table.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace kaisha::hiva
