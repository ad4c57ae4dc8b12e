// HiVA's algorithm for one task (hiva.md §4 Algorithm 1, §5 Algorithm 2,
// §6-§8), as a pure driver (runtime/driver/driver_effects.hpp): no actor, no
// clock, no file.
//
// One iteration:
//  1. Forward pass over the graph (ForwardSchedule): an agent runs when every
//     predecessor has settled and one reached it; agents ready together run
//     together. An agent's step runs its tool on its instruction (RunTool
//     hiva.agent_tool; none when it has no tool), then asks its hired agent
//     with its system prompt over the instruction and the tool's result or
//     failure. It then picks its successors by KABB (routing/kabb_router)
//     and writes each chosen successor but the aggregator an instruction
//     (Fig. 6); ℛ_ij counts the routings. The aggregator synthesises the
//     outputs of the agents that routed to it: that is the answer y.
//  2. Loss: the environment (RunTool hiva.environment) when the task is an
//     item of `kaisha evolve`'s task set, else (and with use_environment off)
//     the aggregator's self-critique; the global gradient at v_a (Fig. 7).
//     An interactive item's episode runs to its end first: while the
//     environment says it continues, its reply starts another forward pass
//     (over the task and the episode so far), and the loss is the whole
//     episode's. The backward pass then reads the last pass's outputs.
//  3. Backward pass in reverse topological order over the agents that ran:
//     each gets its successors' gradients (Fig. 8), a reward r from its
//     gradient (App. D.4), a semantic update (Fig. 9 prompt, or Fig. 12/13
//     tool, drawn with prompt_weight) and then, but for the aggregator, a
//     topology decision on the updated agent (Fig. 10, after a
//     parallelizability analysis; an ADD gets a new agent's prompt written).
//  4. Updates: the agents' Beta posteriors and the edges' synergy and
//     history (routing/bandit_update), the topology decisions applied in
//     reverse topological order, RepairTopology, and, with save_as, the
//     graph saved as the strategy's state (SaveState "graph/<name>",
//     change "iteration <t>").
// With iterations = 0 a task is one forward pass; with N, N iterations
// (Algorithm 1 returns the y of the last forward pass, before its update).
//
// Choices the paper leaves open, made here:
//  - The backward pass covers the agents that ran (they have an output to
//    judge); an agent's successors that did not run give it no gradient.
//  - ζ for a routing decision is taken over {router, candidate}, so a score
//    depends on the edges' synergy and not on which other agents happened to
//    answer first; θ draws are keyed by (seed, iteration, router, candidate).
//  - An agent instructed by several predecessors takes the instruction of
//    the one latest in topological order (§5 [CODE]'s last writer, as the
//    reference code runs agents), and the aggregator reads its inputs in
//    that order, so replies arriving in another order make the same run.
//  - An ADD_PARALLEL whose parallelizability score is below the threshold is
//    journaled and not applied.
//  - An agent whose model or tool fails still routes with the failure as its
//    output, so an aggregated answer still comes (item 23). A refused hire
//    ends the task.
//  - With a provider's embedder, a text whose embedding failed counts as
//    dissimilar to everything (Ψ1 and the concept matches fall back to
//    keywords) rather than stopping the task.
//  - Ψ3 reads the agent's records (GraphAgent::history): each agent that
//    ran records (task, r) at the update, r being its reward; the records
//    travel with the graph, so a saved graph routes by them on later tasks.
//  - Each graph agent is hired the first time the task needs it, named
//    "hiva-<id>", and fired when the task ends; every ask carries the
//    agent's current prompt, so an agent keeps nothing between iterations.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/hiva/graph/agent_graph.hpp"
#include "runtime/hiva/graph/forward_schedule.hpp"
#include "runtime/hiva/graph/topology_edit.hpp"
#include "runtime/hiva/hiva_setup.hpp"
#include "runtime/hiva/replies/agent_feedback.hpp"
#include "runtime/hiva/routing/knowledge_cost.hpp"
#include "runtime/hiva/routing/weight_fit.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::hiva {

class HivaDriver {
 public:
  // An interactive episode still running after this many answers is
  // judged a failure (a script's misses bound it anyway).
  static constexpr size_t kMaxEpisodeTurns = 100;

  // `graph`: the graph the task starts from; `iteration`: the iterations it
  // has been through (the next one is iteration + 1); `outcomes`: the
  // routing outcomes its snapshot kept (for `kaisha evolve`'s fit of ω).
  // The graph's fitted knowledge weights, when it has them, replace the
  // configured ones.
  HivaDriver(HivaSetup setup, msg::TaskRequest task, AgentGraph graph, int iteration,
             std::vector<RoutingOutcome> outcomes = {});

  driver::Effects start();
  driver::Effects on(const driver::Outcome& o);
  driver::Effects cancel(const std::string& why);

  bool finished() const { return finished_; }
  const AgentGraph& graph() const { return graph_; }

  // "hiva-<id>".
  static std::string hire_name(const std::string& agent);

 private:
  struct Reply {
    bool ok = false;
    std::string text;
    std::string error;
  };
  using Then = std::function<void(driver::Effects&, const Reply&)>;
  using Values = std::map<std::string, std::string>;

  // Calls, the caps checked first.
  bool may_call(driver::Effects& out);
  void call_model(driver::Effects& out, const std::string& purpose, HivaPrompt prompt, const Values& values,
                  const Sampling& sampling, Then then);
  void ask_agent(driver::Effects& out, const std::string& agent, HivaPrompt prompt, const Values& values,
                 const Sampling& sampling, Then then);
  void run_tool(driver::Effects& out, const std::string& tool, const json& args,
                std::function<void(driver::Effects&, const company::ToolResult&)> then);
  void problem(driver::Effects& out, const std::string& call, const std::optional<std::string>& found,
               const Reply& reply);
  void event(driver::Effects& out, const char* name, const std::string& text, json data, bool journaled = true);

  // Embeddings. With a provider's embedder (setup_.embed null), the texts
  // the routing compares (the task, the agents' prompts and tool
  // descriptions whose profiles are not kept yet) are embedded by one
  // RunTool hiva.embed before a forward pass; a failed call is a problem,
  // and the texts then have no vector (no evidence of similarity).
  std::vector<std::string> texts_to_embed() const;
  void embed_then(driver::Effects& out, std::function<void(driver::Effects&)> then);
  Embed embedder() const;  // setup_.embed, or a look-up in vectors_
  // unit(embedding) of a text, kept in vectors_ for the task.
  const Embedding& vector_of(const std::string& text);

  // 1. Forward.
  void begin_iteration(driver::Effects& out);
  void start_pass(driver::Effects& out);  // a forward pass over pass_input_
  void pump_forward(driver::Effects& out);
  void hire_then(driver::Effects& out, const std::string& agent, std::function<void(driver::Effects&)> then);
  void step_agent(driver::Effects& out, const std::string& agent);
  void agent_answered(driver::Effects& out, const std::string& agent, const Reply& r);
  void route(driver::Effects& out, const std::string& agent);
  void aggregate(driver::Effects& out);
  void forward_done(driver::Effects& out);
  double dist_of(const std::string& agent);

  // 2. Loss.
  void loss(driver::Effects& out);
  void on_loss(driver::Effects& out, std::string text, std::optional<bool> success);

  // 3. Backward.
  void pump_backward(driver::Effects& out);
  void gradient_known(driver::Effects& out, const std::string& agent, AgentFeedback fb);
  void reward(driver::Effects& out, const std::string& agent);
  void semantic(driver::Effects& out, const std::string& agent);
  void update_tool(driver::Effects& out, const std::string& agent);
  void semantic_done(driver::Effects& out, const std::string& agent);
  void topology(driver::Effects& out, const std::string& agent);
  void decide(driver::Effects& out, const std::string& agent, const std::string& role, double parallelizability,
              const std::string& why);
  void work_done(driver::Effects& out);

  // 4. Updates.
  void update(driver::Effects& out);

  void finish(driver::Effects& out, bool ok, const std::string& text, const std::string& exit);
  json metadata(const std::string& exit) const;

  HivaSetup setup_;
  msg::TaskRequest task_;
  AgentGraph graph_;
  int iteration_;                              // the running iteration (global: the graph's count)
  int first_iteration_;                        // the task's first
  int iterations_left_ = 0;                    // evolution steps still to run after this forward pass
  std::optional<AgentGraph> iteration_start_;  // the graph as the running iteration began
  bool finished_ = false;
  driver::PendingCalls<driver::Effects&> pending_;

  // By text: the provider's answers (empty: it failed), and the past tasks'
  // vectors in process.
  std::map<std::string, Embedding> vectors_;
  std::optional<TaskProfile> task_profile_;
  std::map<std::string, double> dist_;          // per agent, for this iteration
  std::map<std::string, KnowledgeCost> costs_;  // the same, whole
  // Every agent that was scored and ran, with its reward: saved with the
  // graph, newest kMaxRoutingOutcomes.
  std::vector<RoutingOutcome> outcomes_;

  // The running forward pass, and its input: the task, or an interactive
  // episode so far (turn 2 on).
  std::string pass_input_;
  std::vector<std::string> episode_answers_;       // the graph's earlier answers in this iteration's episode
  std::vector<std::string> episode_observations_;  // the environment's reply to each
  std::optional<ForwardSchedule> schedule_;
  bool pumping_ = false;
  bool repump_ = false;
  std::map<std::string, std::string> outputs_;        // y_i
  std::map<std::string, int> instructing_;            // instruction calls still out, per agent
  std::map<std::string, std::string> instructed_by_;  // whose instruction an agent holds
  std::map<std::string, size_t> position_;            // in the pass's topological order
  std::map<std::string, std::vector<std::string>> chosen_;
  std::string answer_;                 // y of the last forward pass
  std::vector<std::string> executed_;  // in topological order
  std::optional<bool> success_;
  // The graph's JSON as the last forward pass or update left it: built once
  // for its event and, when the task ends "done" there, its result.
  std::optional<json> done_graph_;
  std::string loss_;

  // The running backward pass.
  std::map<std::string, AgentFeedback> feedback_;  // by agent, once known
  std::set<std::string> asked_feedback_;
  std::map<std::string, int> rewards_;
  std::map<std::string, TopologyDecision> decisions_;
  std::map<std::string, GraphAgent> new_agents_;
  int work_ = 0;  // reward, semantic and topology flows still out

  std::map<std::string, bool> hired_;  // agent id -> hired (false while the hire is out)
  std::map<std::string, std::vector<std::function<void(driver::Effects&)>>> waiting_hire_;

  int64_t model_calls_ = 0;
  double usd_ = 0;
  int64_t tokens_in_ = 0, tokens_out_ = 0;
  int problems_ = 0;
  json iterations_log_ = json::array();
};

}  // namespace kaisha::hiva
