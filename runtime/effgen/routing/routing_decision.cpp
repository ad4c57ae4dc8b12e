#include "runtime/effgen/routing/routing_decision.hpp"

#include <cstdio>

namespace kaisha::routing {

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string_view to_string(RouteKind k) {
  switch (k) {
    case RouteKind::single:
      return "single";
    case RouteKind::decompose:
      return "decompose";
    case RouteKind::hierarchical:
      return "hierarchical";
  }
  return "single";
}

Strategy strategy_for_shape(planning::DagShape shape) {
  switch (shape) {
    case planning::DagShape::parallel:
      return Strategy::parallel;
    case planning::DagShape::sequential:
      return Strategy::sequential;
    case planning::DagShape::hybrid:
      return Strategy::hybrid;
  }
  return Strategy::hybrid;
}

Strategy final_strategy(RouteKind kind, planning::DagShape shape) {
  switch (kind) {
    case RouteKind::single:
      return Strategy::single;
    case RouteKind::hierarchical:
      return Strategy::hierarchical;
    case RouteKind::decompose:
      return strategy_for_shape(shape);
  }
  return Strategy::single;
}

json RoutingDecision::to_json() const {
  json strategy = nullptr;
  if (kind == RouteKind::single) strategy = "single";
  if (kind == RouteKind::hierarchical) strategy = "hierarchical";
  return json{{"kind", std::string(to_string(kind))},
              {"strategy", strategy},
              {"complexity_score", score.total},
              {"score", score.to_json()},
              {"tau", tau},
              {"tau_h", tau_h},
              {"threshold_profile", threshold_profile},
              {"spawn_strategy", std::string(to_string(spawn_strategy))},
              {"reason", reason}};
}

RoutingDecision decide_route(const ComplexityScore& score, const RoutingConfig& config) {
  RoutingDecision d;
  d.score = score;
  d.tau = config.tau;
  d.tau_h = config.tau_h;
  d.threshold_profile = config.threshold_profile;
  d.spawn_strategy = config.spawn_strategy;
  const double c = score.total;
  const std::string cs = "C=" + num(c);

  if (!config.enabled) {
    d.kind = RouteKind::single;
    d.reason = "complexity routing disabled: single agent (" + cs + ")";
  } else if (config.spawn_strategy == SpawnStrategy::never) {
    d.kind = RouteKind::single;
    d.reason = "spawn_strategy=never: single agent (" + cs + ")";
  } else if (c >= config.tau_h) {
    if (config.enable_hierarchical) {
      d.kind = RouteKind::hierarchical;
      d.reason = cs + " >= tau_h=" + num(config.tau_h) + ": hierarchical (manager + workers)";
    } else {
      d.kind = RouteKind::decompose;
      d.reason = cs + " >= tau_h=" + num(config.tau_h) +
                 " but enable_hierarchical=false: decompose; strategy from the DAG shape";
    }
  } else if (c >= config.tau) {
    d.kind = RouteKind::decompose;
    d.reason = cs + " >= tau=" + num(config.tau) + " and < tau_h=" + num(config.tau_h) +
               ": decompose; strategy from the DAG shape";
  } else if (config.spawn_strategy == SpawnStrategy::always) {
    d.kind = RouteKind::decompose;
    d.reason = "spawn_strategy=always: decompose although " + cs + " < tau=" + num(config.tau);
  } else {
    d.kind = RouteKind::single;
    d.reason = cs + " < tau=" + num(config.tau) + ": single agent";
  }
  return d;
}

}  // namespace kaisha::routing
