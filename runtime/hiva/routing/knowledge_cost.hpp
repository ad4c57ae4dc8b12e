// KABB's knowledge-based cost of giving a task to an agent (hiva.md §6.2,
// §14 item 7):
//
//   Dist(A, I) = ln(1 + d_I) · Σ_{k=1..4} ω_k Ψ_k,   Σ ω_k = 1,  Ψ_k ∈ [0, 1]
//
// d_I is the depth of the task's primary concept under the knowledge
// graph's root; each Ψ_k is a mismatch between the agent and the task:
//   Ψ1 semantic:   1 − (½·Jaccard(agent keywords, task keywords)
//                       + ½·max(0, cosine(agent embedding, task embedding)))
//   Ψ2 dependency: the fewest KG edges (walked either way) from the agent's
//                  skill concepts to the task's concept, over the KG's
//                  diameter, at most 1; 1 when no path joins them
//   Ψ3 history:    1 − the agent's mean success over the `history_k` past
//                  tasks most similar to this one, among those at least
//                  `similarity_threshold` similar; 0.5 (neutral) when none is
//   Ψ4 tools:      1 when the task's concept requires a tool (by
//                  requires_skill / has_tool edges) the agent's tool does not
//                  match, else 0
// Agents are described by their prompt and tool description (profile_of),
// tasks by their text (task_profile_of); the KG is consulted for concepts
// and tools only, so agents created by HiVA's evolution need no KG node.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/hiva/routing/embedding.hpp"
#include "runtime/hiva/routing/knowledge_graph.hpp"

namespace kaisha::hiva {

struct KnowledgeCostSettings {
  // ω1..ω4. The paper learns them on a validation set and gives no values;
  // equal weights are our choice. validate() requires each to be finite and
  // >= 0 and their sum to be 1 within 1e-9.
  std::array<double, 4> weights = {0.25, 0.25, 0.25, 0.25};
  // The paper's "knowledge distance threshold" (App. D.2, 0.75), used as a
  // similarity threshold: a past task counts for Ψ3, and an agent's tool
  // matches a KG tool for Ψ4 by embedding, when the cosine reaches it.
  double similarity_threshold = 0.75;
  // Ψ3 when no past task is similar enough: neither a bonus nor a penalty
  // (our choice; the paper does not say).
  double neutral_history = 0.5;
  // Ψ3 reads at most this many past tasks, the most similar first (ties to
  // the earlier record), so that a long record of loosely similar tasks
  // does not outweigh the few closest ones (our choice; the paper says
  // "only on semantically similar past tasks"). >= 1.
  int history_k = 5;
};

// Error{"config", ...} naming the first bad setting and its value.
Status validate(const KnowledgeCostSettings& settings);

// What KABB knows of an agent: the words and embedding of its prompt
// (role), and of its tool's description.
struct AgentProfile {
  std::vector<std::string> keywords;       // keywords_of(prompt)
  Embedding embedding;                     // unit(embed(prompt))
  std::vector<std::string> tool_keywords;  // keywords_of(tool description)
  Embedding tool_embedding;                // unit(embed(tool description)); empty without a tool
};

// An empty tool description means the agent has no tool; `embed` is not
// called for it.
AgentProfile profile_of(const std::string& prompt, const std::string& tool_description, const Embed& embed);

struct TaskProfile {
  std::vector<std::string> keywords;  // keywords_of(task text)
  Embedding embedding;                // unit(embed(task text))
  // The primary concept: the concept node whose embedding is most similar
  // to the task's (ties to the first in node order), and its depth d_I.
  size_t concept_node = 0;
  int depth = 0;
};

// Error{"config", ...} when the graph's nodes are not embedded yet
// (KnowledgeGraph::embed_nodes).
Result<TaskProfile> task_profile_of(const std::string& task, const KnowledgeGraph& graph, const Embed& embed);

// One past task the agent worked on: how similar it is to the current task
// (a cosine, in [-1, 1]) and how well the agent did (in [0, 1]; 1 = success).
struct PastTask {
  double similarity = 0.0;
  double success = 0.0;
};

// Ψ3 alone: 1 − the mean success of the history_k most similar records at
// or above similarity_threshold, neutral_history when there is none. The
// records are taken as valid (knowledge_cost checks them).
double history_mismatch(const std::vector<PastTask>& history, const KnowledgeCostSettings& settings);

struct KnowledgeCost {
  int depth = 0;                       // d_I
  std::array<double, 4> psi{};         // Ψ1..Ψ4
  double dist = 0.0;                   // ln(1 + d_I) · Σ ω_k Ψ_k
  std::vector<size_t> skill_concepts;  // Ψ2's starting concepts, in node order
  std::vector<size_t> missing_tools;   // the required tools the agent lacks (Ψ4), in node order
};

// The agent's skill concepts are the concepts (the root excepted: every
// agent is about "tasks") sharing a keyword with its prompt, plus the
// concept most similar to its prompt's embedding. An agent has a KG tool
// when its tool description shares a keyword with the tool node or their
// embeddings' cosine reaches the similarity threshold.
// Errors (Error{"config"} for settings, Error{"invalid_argument"} for
// inputs) name the bad value: invalid settings, a task concept that is not
// a concept of `graph`, a past task whose similarity or success is out of
// range ("history[2].success: 1.5 is outside [0, 1]").
Result<KnowledgeCost> knowledge_cost(const AgentProfile& agent, const TaskProfile& task,
                                     const std::vector<PastTask>& history, const KnowledgeGraph& graph,
                                     const KnowledgeCostSettings& settings = {});

}  // namespace kaisha::hiva
