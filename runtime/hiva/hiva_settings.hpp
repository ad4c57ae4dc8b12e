// HiVA's settings (hiva.md §6.4, §9's table, §14): what the `hiva:` section
// of a config file sets (runtime/hiva/entry reads it). The defaults are the
// paper's where it gives one; the rest are ours, marked so.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/hiva/routing/bandit_update.hpp"
#include "runtime/hiva/routing/kabb_router.hpp"
#include "runtime/hiva/routing/knowledge_cost.hpp"

namespace kaisha::hiva {

// One kind of model call's sampling (§9: App. B.3 and the reference code).
struct Sampling {
  double temperature = 1.0;
  int64_t max_tokens = 1000;
};

struct HivaSettings {
  // The strategy's own calls (instructions, gradients, updates, topology):
  // a model ref or cost-table name; "" = ceo.model.
  std::string model;
  // The graph's agents (hired employees); "" = `model`.
  std::string agent_model;

  // STEV iterations within one `kaisha run` task (test-time evolution with
  // the aggregator's self-critique as the loss); 0 = one forward pass over
  // the graph. `kaisha evolve` runs one iteration per task.
  int iterations = 0;
  // A saved graph to start from ("" = the singleton v_s -> v_a).
  std::string graph;
  // Where an evolved graph is saved after each iteration ("" = not saved).
  std::string save_as;
  // A task set (JSONL, docs/suites.md): a task whose input is one of its
  // items' is judged by that item's environment. `kaisha evolve` sets it.
  std::string task_set;

  uint64_t seed = 42;  // §9: every random operation

  // Switches: the paper's four ablations (§11.8).
  bool use_kabb = true;         // off: an agent routes to every successor (w/o-KABB)
  bool use_semantic = true;     // off: prompts and tools stay as they are (w/o-SEV)
  bool use_topology = true;     // off: the graph keeps its shape (w/o-TEV)
  bool use_environment = true;  // off: the aggregator critiques itself (w/o-Env)

  KabbSettings routing;  // k = 2 here (the paper's MATH script; ours)
  // knowledge.weights (ω) are hiva.knowledge_weights, unless the graph a
  // task starts from carries weights `kaisha evolve` fitted for it.
  KnowledgeCostSettings knowledge;
  // `kaisha evolve` fits ω (routing/weight_fit.hpp) when an evolution ends
  // with at least this many routing outcomes recorded; 0 = never.
  size_t fit_weights_min_outcomes = 30;
  BanditSettings bandit;
  std::string knowledge_graph;  // a KG JSON file; "" = data/hiva/knowledge.json

  double prune_below = 0.3;                  // §8 step 3
  double parallelizability_threshold = 0.5;  // §7.4
  // §7.3's 0.7 / 0.3: the chance an agent's semantic update rewrites its
  // prompt rather than its tool (drawn per agent and iteration; ours).
  double prompt_weight = 0.7;

  Sampling instruction{1.0, 1000};  // Fig. 6
  Sampling agent{0.7, 1000};        // an agent's step ([CODE])
  Sampling aggregation{0.3, 1500};  // v_a ([CODE])
  Sampling feedback{0.3, 1000};     // gradients, rewards, topology ([CODE])
  Sampling code{0.3, 1000};         // tool synthesis and refinement (§7.3)

  // An agent's tool and an environment's test run (App. G.2): the wall
  // clock of one run, and how often a run that timed out or crashed is tried
  // again (with 0.5, 1, 2 s ... between).
  int64_t tool_timeout_s = 30;
  int tool_retries = 3;

  // Hard caps per task; 0 = none.
  int64_t max_model_calls = 0;
  double max_usd = 0;

  HivaSettings() { routing.k = 2; }
};

}  // namespace kaisha::hiva
