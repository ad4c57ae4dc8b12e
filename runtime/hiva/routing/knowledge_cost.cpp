#include "runtime/hiva/routing/knowledge_cost.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/hiva/routing/keywords.hpp"
#include "runtime/hiva/routing/number_text.hpp"

namespace kaisha::hiva {

namespace {

Error cost_config_error(const std::string& message) {
  return Error{"config", "KABB knowledge cost settings: " + message};
}

std::string weights_text(const std::array<double, 4>& w) {
  return "[" + number_text(w[0]) + ", " + number_text(w[1]) + ", " + number_text(w[2]) + ", " + number_text(w[3]) + "]";
}

bool agent_has_tool(const AgentProfile& agent, const KnowledgeGraph& graph, size_t tool, double threshold) {
  if (intersects(agent.tool_keywords, graph.nodes()[tool].keywords)) return true;
  return !agent.tool_embedding.empty() && cosine(agent.tool_embedding, graph.embedding(tool)) >= threshold;
}

std::vector<size_t> skill_concepts_of(const AgentProfile& agent, const KnowledgeGraph& graph) {
  std::vector<size_t> concepts;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const KgNode& node = graph.nodes()[i];
    if (node.kind == NodeKind::concept_ && i != graph.root() && intersects(agent.keywords, node.keywords)) {
      concepts.push_back(i);
    }
  }
  const size_t nearest = graph.most_similar_concept(agent.embedding);
  if (std::find(concepts.begin(), concepts.end(), nearest) == concepts.end()) {
    concepts.insert(std::upper_bound(concepts.begin(), concepts.end(), nearest), nearest);
  }
  return concepts;
}

}  // namespace

Status validate(const KnowledgeCostSettings& settings) {
  double sum = 0.0;
  for (size_t k = 0; k < settings.weights.size(); ++k) {
    const double w = settings.weights[k];
    if (!std::isfinite(w) || w < 0) {
      return cost_config_error("weights " + weights_text(settings.weights) + ": ω" + std::to_string(k + 1) + " = " +
                               number_text(w) + " must be a finite number >= 0");
    }
    sum += w;
  }
  if (std::fabs(sum - 1.0) > 1e-9) {
    return cost_config_error("weights " + weights_text(settings.weights) + " sum to " + number_text(sum) +
                             "; they must sum to 1 (within 1e-9)");
  }
  if (!std::isfinite(settings.similarity_threshold) || settings.similarity_threshold < -1 ||
      settings.similarity_threshold > 1) {
    return cost_config_error("similarity_threshold is " + number_text(settings.similarity_threshold) +
                             "; it must be a cosine in [-1, 1]");
  }
  if (!std::isfinite(settings.neutral_history) || settings.neutral_history < 0 || settings.neutral_history > 1) {
    return cost_config_error("neutral_history is " + number_text(settings.neutral_history) + "; it must be in [0, 1]");
  }
  if (settings.history_k < 1) {
    return cost_config_error("history_k is " + std::to_string(settings.history_k) + "; it must be at least 1");
  }
  return Status::Ok();
}

double history_mismatch(const std::vector<PastTask>& history, const KnowledgeCostSettings& settings) {
  std::vector<const PastTask*> similar;
  for (const PastTask& past : history)
    if (past.similarity >= settings.similarity_threshold) similar.push_back(&past);
  std::stable_sort(similar.begin(), similar.end(),
                   [](const PastTask* a, const PastTask* b) { return a->similarity > b->similarity; });
  const size_t n = std::min(similar.size(), static_cast<size_t>(std::max(1, settings.history_k)));
  if (n == 0) return settings.neutral_history;
  double successes = 0.0;
  for (size_t i = 0; i < n; ++i) successes += similar[i]->success;
  return 1.0 - successes / static_cast<double>(n);
}

AgentProfile profile_of(const std::string& prompt, const std::string& tool_description, const Embed& embed) {
  AgentProfile profile;
  profile.keywords = keywords_of(prompt);
  profile.embedding = unit(embed(prompt));
  if (!tool_description.empty()) {
    profile.tool_keywords = keywords_of(tool_description);
    profile.tool_embedding = unit(embed(tool_description));
  }
  return profile;
}

Result<TaskProfile> task_profile_of(const std::string& task, const KnowledgeGraph& graph, const Embed& embed) {
  if (!graph.embedded()) {
    return Error{"config", "the knowledge graph's nodes have no embeddings yet (KnowledgeGraph::embed_nodes)"};
  }
  TaskProfile profile;
  profile.keywords = keywords_of(task);
  profile.embedding = unit(embed(task));
  profile.concept_node = graph.most_similar_concept(profile.embedding);
  profile.depth = graph.depth(profile.concept_node);
  return profile;
}

Result<KnowledgeCost> knowledge_cost(const AgentProfile& agent, const TaskProfile& task,
                                     const std::vector<PastTask>& history, const KnowledgeGraph& graph,
                                     const KnowledgeCostSettings& settings) {
  if (Status s = validate(settings); !s) return s.error();
  if (task.concept_node >= graph.nodes().size() || graph.nodes()[task.concept_node].kind != NodeKind::concept_) {
    return Error{"invalid_argument",
                 "task.concept_node " + std::to_string(task.concept_node) + " is not a concept of the knowledge graph"};
  }
  KnowledgeCost cost;
  cost.depth = graph.depth(task.concept_node);

  // Ψ1: the brief's "Jaccard extended with the embedding cosine"; a negative
  // cosine counts as no similarity, so Ψ1 stays in [0, 1].
  const double overlap = jaccard(agent.keywords, task.keywords);
  const double similarity = std::max(0.0, cosine(agent.embedding, task.embedding));
  cost.psi[0] = 1.0 - (0.5 * overlap + 0.5 * similarity);

  // Ψ2
  cost.skill_concepts = skill_concepts_of(agent, graph);
  const std::optional<int> path = graph.undirected_distance(cost.skill_concepts, task.concept_node);
  if (!path) {
    cost.psi[1] = 1.0;
  } else if (graph.diameter() == 0) {
    cost.psi[1] = 0.0;
  } else {
    cost.psi[1] = std::min(1.0, static_cast<double>(*path) / graph.diameter());
  }

  // Ψ3
  for (size_t i = 0; i < history.size(); ++i) {
    const PastTask& past = history[i];
    const std::string where = "history[" + std::to_string(i) + "]";
    if (!std::isfinite(past.similarity) || past.similarity < -1 || past.similarity > 1) {
      return Error{"invalid_argument", where + ".similarity: " + number_text(past.similarity) + " is outside [-1, 1]"};
    }
    if (!std::isfinite(past.success) || past.success < 0 || past.success > 1) {
      return Error{"invalid_argument", where + ".success: " + number_text(past.success) + " is outside [0, 1]"};
    }
  }
  cost.psi[2] = history_mismatch(history, settings);

  // Ψ4
  for (size_t tool : graph.required_tools(task.concept_node)) {
    if (!agent_has_tool(agent, graph, tool, settings.similarity_threshold)) cost.missing_tools.push_back(tool);
  }
  cost.psi[3] = cost.missing_tools.empty() ? 0.0 : 1.0;

  double mismatch = 0.0;
  for (size_t k = 0; k < 4; ++k) mismatch += settings.weights[k] * cost.psi[k];
  cost.dist = std::log1p(static_cast<double>(cost.depth)) * mismatch;
  return cost;
}

}  // namespace kaisha::hiva
