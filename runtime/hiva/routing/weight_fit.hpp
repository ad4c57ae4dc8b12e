// Fitting ω, the weights of the knowledge cost's four mismatches (hiva.md
// §6.2: "Learnable, Σω = 1, fit on a validation set to maximise the
// correlation between Dist and actual task success").
//
// The data are routing outcomes: an agent KABB scored (its d_I and Ψ1..Ψ4)
// that then ran, and how it did (its reward). A good cost is low where the
// agent succeeds, so the fit maximises the Pearson correlation between −Dist
// and success (equivalently, the most negative correlation of Dist with
// success; with a 0/1 success it is the point-biserial correlation).
//
// The search is exhaustive over the simplex grid of step 1/`steps` (each ω_k
// a multiple of it, Σ = 1, all >= 0: 1771 points at the default 20), so the
// answer is the grid's best, found the same way every time: ties (within
// 1e-12) go to the point nearest `prior` (L1), then to the earlier point in
// lexicographic order of (ω1, ω2, ω3, ω4) descending.
#pragma once

#include <array>
#include <optional>
#include <cstddef>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::hiva {

struct RoutingOutcome {
  int depth = 0;                // d_I of the task
  std::array<double, 4> psi{};  // Ψ1..Ψ4, each in [0, 1]
  double success = 0;           // in [0, 1]
};

struct WeightFitSettings {
  int steps = 20;            // the grid's resolution: ω_k in {0, 1/steps, ..., 1}; 1..100
  size_t min_outcomes = 30;  // fewer: no fit (Error{"not_enough"})
  std::array<double, 4> prior = {0.25, 0.25, 0.25, 0.25};  // ties go to the point nearest it
};

struct WeightFit {
  std::array<double, 4> weights{};
  double correlation = 0;        // corr(−Dist, success) at `weights`
  double prior_correlation = 0;  // at `prior`, for comparison (0 when Dist does not vary there)
  size_t outcomes = 0;
};

// How many outcomes a graph's snapshot keeps (the newest).
inline constexpr size_t kMaxRoutingOutcomes = 2000;

// [[d_I, Ψ1, Ψ2, Ψ3, Ψ4, success], ...], as a snapshot keeps them.
json routing_outcomes_json(const std::vector<RoutingOutcome>& outcomes);
// The inverse; entries that are not six numbers in range are skipped (a
// snapshot is the strategy's own data, and a bad entry must not stop a task).
std::vector<RoutingOutcome> routing_outcomes_from_json(const json& j);

// Errors: Error{"not_enough", ...} with fewer than min_outcomes outcomes, or
// when success, or Dist at every grid point, does not vary (no correlation
// is defined); Error{"invalid_argument", "outcomes[3].psi[1]: ..."} for a
// value out of range; Error{"config"} for bad settings.
Result<WeightFit> fit_weights(const std::vector<RoutingOutcome>& outcomes, const WeightFitSettings& settings = {});

// Pearson's r of two equally long series; nullopt when either has zero
// variance or they are shorter than 2.
std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace kaisha::hiva
