// What HiVA's driver is given besides its task: the settings, the prompts
// and the knowledge graph loaded once when a company starts, the configured
// embedder (memory.embedding_model, else the built-in one), the graph agents' prices, and the task set's items when
// `kaisha evolve` runs it. Everything impure was done before the driver
// runs; the driver reads none of it from disk.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "runtime/economy/model_cost.hpp"
#include "runtime/hiva/agent_profiles.hpp"
#include "runtime/hiva/hiva_settings.hpp"
#include "runtime/hiva/replies/hiva_prompts.hpp"
#include "runtime/hiva/routing/embedding.hpp"
#include "runtime/hiva/routing/knowledge_graph.hpp"
#include "runtime/hiva/tools/hiva_tool_names.hpp"

namespace kaisha::hiva {

// Every prompt's two templates, loaded at start.
using HivaPromptSet = std::map<HivaPrompt, HivaPromptTemplates>;

// The state key an evolved graph is saved under.
inline std::string graph_state_key(const std::string& name) { return "graph/" + name; }

struct HivaSetup {
  HivaSettings settings;
  std::shared_ptr<const HivaPromptSet> prompts;
  std::shared_ptr<const KnowledgeGraph> knowledge;  // its nodes embedded with the configured embedder
  // The configured embedder when it answers at once (the built-in one). Null
  // when it is a provider's, which waits for HTTP: the driver then asks for
  // the vectors it needs with RunTool hiva.embed, run on the tool source's
  // workers, before each forward pass.
  Embed embed;
  // The agents' knowledge profiles, kept between the strategy's tasks (null:
  // built afresh for each routing).
  std::shared_ptr<AgentProfiles> profiles;
  economy::ModelCost agent_cost;  // what hiring and asking a graph agent costs
  // `kaisha evolve`: a task whose input is an item's asks the environment
  // about that item (its id); other tasks critique themselves.
  std::map<std::string, std::string> environment_items;
  std::function<bool()> listening;  // never null once set up
};

}  // namespace kaisha::hiva
