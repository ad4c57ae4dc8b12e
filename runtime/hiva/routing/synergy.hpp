// KABB's team synergy (hiva.md §6.1, §14 item 8): the mean edge synergy
// C_syn over the ordered pairs of a team,
//
//   ζ(S) = 1 / (|S|·(|S|−1)) · Σ_{i≠j ∈ S} C_syn(i, j)
//
// C_syn is read through a function, so the caller's graph type stays its
// own; it returns nullopt for a pair without an edge.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kaisha::hiva {

// C_syn(from, to), or nullopt when no edge joins them in that direction.
using SynergyLookup = std::function<std::optional<double>(const std::string& from, const std::string& to)>;

struct SynergySettings {
  // ζ of a team of one (or none), where the paper's mean is undefined:
  // neutral, so the synergy factor ζ^η leaves the score as it is.
  double singleton = 1.0;
  // C_syn of an ordered pair without an edge. A DAG never has both (i, j)
  // and (j, i), and most pairs of a team have no edge at all, so 0 here
  // would pull every team's ζ towards 0 and let the factor ζ^η crush the
  // score; 1, the same neutral value, counts a missing edge as "no evidence
  // either way" (our choice; the paper does not say).
  double missing_edge = 1.0;
};

// The mean over the ordered pairs of `team`, each member counted once (a
// repeated id is ignored).
double team_synergy(const std::vector<std::string>& team, const SynergyLookup& lookup,
                    const SynergySettings& settings = {});

// A lookup over a fixed table keyed by (from, to); the table is copied.
SynergyLookup synergy_table(std::map<std::pair<std::string, std::string>, double> table);

}  // namespace kaisha::hiva
