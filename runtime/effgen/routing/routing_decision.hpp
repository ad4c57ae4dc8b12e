// The effGen routing decision (Algorithm 7, §3.3; effgen.md §23 item 19):
//
//   C < τ          → SINGLE (one ReAct agent, no decomposition)
//   τ ≤ C < τ_H    → decompose; PARALLEL, SEQUENTIAL or HYBRID follows from
//                    the shape of the decomposition DAG
//   C ≥ τ_H        → HIERARCHICAL (manager + workers)
//
// Why "decompose" is not yet a strategy: Algorithm 7 picks PARALLEL /
// SEQUENTIAL / HYBRID from the task's dependencies, but those only exist once
// the decomposer (an LLM call) has returned its DAG (effgen.md §21 item 32,
// §4.3). So routing answers RouteKind::decompose, the planner asks for the
// DAG (the hybrid prompt, which can express all three shapes; for
// RouteKind::hierarchical the hierarchical prompt), and classifies it.
//
// Once the DAG is known, final_strategy() turns the route and the DAG's
// shape (planning::SubtaskDag::shape(), runtime/dag) into the strategy that
// runs and is journaled.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/dag/subtask_dag.hpp"
#include "runtime/effgen/routing/complexity_score.hpp"
#include "runtime/effgen/routing/routing_config.hpp"
#include "runtime/effgen/routing/strategy.hpp"

namespace kaisha::routing {

enum class RouteKind { single, decompose, hierarchical };

// "single", "decompose", "hierarchical".
std::string_view to_string(RouteKind k);

// parallel → PARALLEL, sequential → SEQUENTIAL, hybrid → HYBRID.
Strategy strategy_for_shape(planning::DagShape shape);
// SINGLE and HIERARCHICAL routes keep their strategy whatever the DAG;
// a decompose route takes strategy_for_shape(shape).
Strategy final_strategy(RouteKind kind, planning::DagShape shape);

// One decision, with everything needed to explain it later: the runtime
// journals to_json() as the ROUTING_DECISION event.
struct RoutingDecision {
  RouteKind kind = RouteKind::single;
  ComplexityScore score;
  double tau = 7.0;
  double tau_h = 8.5;
  std::string threshold_profile;  // "" = defaults or explicit thresholds
  SpawnStrategy spawn_strategy = SpawnStrategy::automatic;
  std::string reason;  // one sentence: which rule fired and why

  // {"kind", "strategy" (single / hierarchical, or null until the DAG is
  //  known), "complexity_score", "score": ComplexityScore::to_json(), "tau",
  //  "tau_h", "threshold_profile", "spawn_strategy", "reason"}.
  json to_json() const;
};

// The decision for `score` under `config` (thresholds, spawn_strategy,
// enabled, enable_hierarchical). In order:
//   enabled == false          → single;
//   spawn_strategy == never   → single;
//   C ≥ τ_H                   → hierarchical, or decompose when
//                               enable_hierarchical == false;
//   C ≥ τ                     → decompose;
//   spawn_strategy == always  → decompose;
//   otherwise                 → single.
// `config` is assumed valid (RoutingConfig::validate()).
RoutingDecision decide_route(const ComplexityScore& score, const RoutingConfig& config);

}  // namespace kaisha::routing
