#include "runtime/hiva/routing/weight_fit.hpp"

#include <cmath>
#include <string>

#include "runtime/hiva/routing/number_text.hpp"

namespace kaisha::hiva {

std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 2 || y.size() != n) return std::nullopt;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= double(n);
  my /= double(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  // Relative to the values' scale: a "variance" of rounding noise is none.
  if (sxx <= 1e-24 * n || syy <= 1e-24 * n) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

namespace {

std::optional<double> correlation_at(const std::vector<RoutingOutcome>& outcomes, const std::vector<double>& success,
                                     const std::array<double, 4>& w) {
  std::vector<double> minus_dist;
  minus_dist.reserve(outcomes.size());
  for (const RoutingOutcome& o : outcomes) {
    double m = 0;
    for (size_t k = 0; k < 4; ++k) m += w[k] * o.psi[k];
    minus_dist.push_back(-std::log1p(double(o.depth)) * m);
  }
  return pearson(minus_dist, success);
}

double l1(const std::array<double, 4>& a, const std::array<double, 4>& b) {
  double d = 0;
  for (size_t k = 0; k < 4; ++k) d += std::fabs(a[k] - b[k]);
  return d;
}

}  // namespace

Result<WeightFit> fit_weights(const std::vector<RoutingOutcome>& outcomes, const WeightFitSettings& settings) {
  if (settings.steps < 1 || settings.steps > 100)
    return Error{"config", "weight fit: steps is " + std::to_string(settings.steps) + "; it must be 1..100"};
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const RoutingOutcome& o = outcomes[i];
    const std::string at = "outcomes[" + std::to_string(i) + "]";
    if (o.depth < 0) return Error{"invalid_argument", at + ".depth: " + std::to_string(o.depth) + " is below 0"};
    for (size_t k = 0; k < 4; ++k)
      if (!std::isfinite(o.psi[k]) || o.psi[k] < 0 || o.psi[k] > 1)
        return Error{"invalid_argument",
                     at + ".psi[" + std::to_string(k) + "]: " + number_text(o.psi[k]) + " is outside [0, 1]"};
    if (!std::isfinite(o.success) || o.success < 0 || o.success > 1)
      return Error{"invalid_argument", at + ".success: " + number_text(o.success) + " is outside [0, 1]"};
  }
  if (outcomes.size() < settings.min_outcomes)
    return Error{"not_enough", std::to_string(outcomes.size()) + " routing outcomes; the fit needs " +
                                   std::to_string(settings.min_outcomes)};
  std::vector<double> success;
  for (const RoutingOutcome& o : outcomes) success.push_back(o.success);
  if (!pearson(success, success))
    return Error{"not_enough", "every one of the " + std::to_string(outcomes.size()) +
                                   " routing outcomes has the same success (" + number_text(success.front()) +
                                   "); there is nothing to correlate the knowledge cost with"};

  const int n = settings.steps;
  std::optional<WeightFit> best;
  double best_distance = 0;
  for (int a = n; a >= 0; --a)
    for (int b = n - a; b >= 0; --b)
      for (int c = n - a - b; c >= 0; --c) {
        const int d = n - a - b - c;
        const std::array<double, 4> w = {double(a) / n, double(b) / n, double(c) / n, double(d) / n};
        const std::optional<double> r = correlation_at(outcomes, success, w);
        if (!r) continue;
        const double distance = l1(w, settings.prior);
        const bool better = !best || *r > best->correlation + 1e-12 ||
                            (*r > best->correlation - 1e-12 && distance < best_distance - 1e-12);
        if (!better) continue;
        best = WeightFit{w, *r, 0, outcomes.size()};
        best_distance = distance;
      }
  if (!best)
    return Error{"not_enough", "the knowledge cost is the same for all " + std::to_string(outcomes.size()) +
                                   " routing outcomes under every weighting; there is nothing to fit"};
  best->prior_correlation = correlation_at(outcomes, success, settings.prior).value_or(0.0);
  return *best;
}

json routing_outcomes_json(const std::vector<RoutingOutcome>& outcomes) {
  json out = json::array();
  for (const RoutingOutcome& o : outcomes)
    out.push_back(json::array({o.depth, o.psi[0], o.psi[1], o.psi[2], o.psi[3], o.success}));
  return out;
}

std::vector<RoutingOutcome> routing_outcomes_from_json(const json& j) {
  std::vector<RoutingOutcome> out;
  if (!j.is_array()) return out;
  auto unit = [](const json& x) { return x.is_number() && x.get<double>() >= 0 && x.get<double>() <= 1; };
  for (const json& e : j) {
    if (!e.is_array() || e.size() != 6 || !e[0].is_number_integer() || e[0].get<int64_t>() < 0 ||
        e[0].get<int64_t>() > 1000000)
      continue;
    bool ok = true;
    for (size_t k = 1; k < 6; ++k) ok = ok && unit(e[k]);
    if (!ok) continue;
    out.push_back(RoutingOutcome{static_cast<int>(e[0].get<int64_t>()),
                                 {e[1].get<double>(), e[2].get<double>(), e[3].get<double>(), e[4].get<double>()},
                                 e[5].get<double>()});
  }
  return out;
}

}  // namespace kaisha::hiva
