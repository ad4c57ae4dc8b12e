#include "runtime/hiva/hiva_strategy.hpp"

#include <memory>
#include <utility>

#include "runtime/core/data_paths.hpp"
#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/hiva_driver.hpp"
#include "runtime/hiva/hiva_setup.hpp"
#include "runtime/hiva/environment/sandbox/task_set_environment.hpp"
#include "runtime/hiva/tools/hiva_tool_source.hpp"
#include "runtime/memory/configured_embedder.hpp"
#include "runtime/suite/suite_file.hpp"

namespace kaisha::hiva {
namespace {

// A task that cannot start (its saved graph is missing or unreadable): it
// finishes at once, saying why.
class RefusedTask {
 public:
  explicit RefusedTask(std::string why) : why_(std::move(why)) {}
  driver::Effects start() {
    return {driver::Finish{false, why_, json{{"strategy", kHivaStrategy}, {"exit", "error"}}}};
  }
  driver::Effects on(const driver::Outcome&) { return {}; }
  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  std::string why_;
};

struct Start {
  AgentGraph graph;
  int iteration = 0;
  std::vector<RoutingOutcome> outcomes;
};

// The graph a task starts from: the latest snapshot of save_as (an evolution
// goes on), else the saved graph it names, else the singleton.
Result<Start> start_of(const HivaSetup& s, const AgentGraph& singleton, const driver::StateValues& state) {
  for (const std::string& name : {s.settings.save_as, s.settings.graph}) {
    if (name.empty()) continue;
    auto it = state.find(graph_state_key(name));
    if (it == state.end()) {
      if (name == s.settings.save_as) continue;
      return Error{"hiva", "no saved graph is named '" + name + "' (kaisha graphs lists them)"};
    }
    const json& v = it->second;
    if (!v.is_object() || !v.contains("graph"))
      return Error{"hiva", "the saved graph '" + name + "' is not a graph snapshot"};
    auto g = graph_from_json(v["graph"]);
    if (!g) return Error{"hiva", "the saved graph '" + name + "': " + g.error().message};
    return Start{std::move(g).value(), v.value("iteration", 0),
                 routing_outcomes_from_json(v.value("routing_outcomes", json::array()))};
  }
  return Start{singleton, 0};
}

}  // namespace

Result<driver::DrivenStrategy> make_hiva_strategy(const driver::StrategySetup& in) {
  auto setup = std::make_shared<HivaSetup>();
  if (const auto* s = std::any_cast<HivaSettings>(&in.settings)) setup->settings = *s;
  HivaSettings& st = setup->settings;
  const std::string model = st.model.empty() ? in.config->ceo.model : st.model;
  if (model.empty())
    return Error{"config", "hiva.model: HiVA needs a model (set hiva.model or ceo.model, or KAISHA_MODEL)"};
  const economy::ModelCost own = in.price(model);
  if (Status s = in.check_model(own.model_ref); !s.ok())
    return Error{"config", "hiva.model '" + model + "': " + s.error().message};
  setup->agent_cost = st.agent_model.empty() ? own : in.price(st.agent_model);
  if (Status s = in.check_model(setup->agent_cost.model_ref); !s.ok())
    return Error{"config", "hiva.agent_model '" + st.agent_model + "': " + s.error().message};

  auto prompts = std::make_shared<HivaPromptSet>();
  for (HivaPrompt p : kHivaPrompts) {
    auto t = load_hiva_prompt(p);
    if (!t) return t.error();
    prompts->emplace(p, std::move(t).value());
  }
  setup->prompts = std::move(prompts);
  auto source_prompt = read_text_file(data_file("prompts/hiva/initial_source.md"));
  if (!source_prompt) return source_prompt.error();
  auto aggregator_prompt = read_text_file(data_file("prompts/hiva/initial_aggregator.md"));
  if (!aggregator_prompt) return aggregator_prompt.error();

  // The company's embedder (memory.embedding_model), as memory's.
  auto configured = memory::configured_embedder(*in.config);
  if (!configured) return configured.error();
  std::shared_ptr<memory::Embedder> embedder = std::move(configured).value();
  auto embed_many = [embedder](const std::vector<std::string>& texts) {
    return memory::embed_blocking(*embedder, texts);
  };
  if (embedder->answers_at_once())
    setup->embed = [embed_many](const std::string& text) {
      auto v = embed_many({text});
      return v.ok() && v->size() == 1 ? v->front() : Embedding{};
    };
  setup->profiles = std::make_shared<AgentProfiles>();
  auto kg =
      read_knowledge_graph(st.knowledge_graph.empty() ? data_file("data/hiva/knowledge.json") : st.knowledge_graph);
  if (!kg) return Error{"config", "hiva.knowledge_graph: " + kg.error().message};
  // Once, as the company starts (not on an actor): one batch for every node.
  const std::vector<std::string> node_texts = kg->node_texts();
  auto node_vectors = embed_many(node_texts);
  if (!node_vectors)
    return Error{"config", "hiva.knowledge_graph: embedding its nodes with " + embedder->model_id() + ": " +
                               node_vectors.error().message};
  if (node_vectors->size() != node_texts.size())
    return Error{"config", "hiva.knowledge_graph: " + embedder->model_id() + " returned " +
                               std::to_string(node_vectors->size()) + " vectors for " +
                               std::to_string(node_texts.size()) + " nodes"};
  std::map<std::string, Embedding> by_text;
  for (size_t i = 0; i < node_texts.size(); ++i) by_text[node_texts[i]] = (*node_vectors)[i];
  kg->embed_nodes([&by_text](const std::string& text) { return by_text[text]; });
  setup->knowledge = std::make_shared<const KnowledgeGraph>(std::move(kg).value());
  setup->listening = in.listening;

  GraphAgent source, aggregator;
  source.role = "source";
  source.prompt = *source_prompt;
  source.tool_version = 0;
  aggregator.role = "aggregator";
  aggregator.prompt = *aggregator_prompt;
  aggregator.tool_version = 0;
  const AgentGraph singleton = AgentGraph::singleton(std::move(source), std::move(aggregator));

  std::map<std::string, suite::SuiteItem> items;
  if (!st.task_set.empty()) {
    auto loaded = suite::load_suite_file(st.task_set);
    if (!loaded) return Error{"config", "hiva.task_set: " + loaded.error().message};
    for (auto& item : *loaded) {
      if (setup->environment_items.count(item.input))
        return Error{"config", "hiva.task_set: " + st.task_set + ": task " + item.id +
                                   " has the same input as an earlier task; HiVA tells the environment which task "
                                   "an answer is for by its input"};
      setup->environment_items[item.input] = item.id;
      items[item.id] = std::move(item);
    }
  }

  driver::DrivenStrategy d;
  d.agent = "HiVA";
  HivaToolSettings tools;
  tools.timeout_ms = st.tool_timeout_s * 1000;
  tools.retries = st.tool_retries;
  d.tools = std::make_shared<HivaToolSource>(tools, embed_many);
  // Without a task set a task has no item to be judged on: the driver never
  // asks, and the aggregator critiques its own answer.
  if (!items.empty()) d.environment = std::make_shared<TaskSetEnvironment>(std::move(items), st.tool_timeout_s);
  d.who = "HiVA";
  d.model = own;
  d.state = kHivaStrategy;
  d.make = [setup, singleton](const msg::TaskRequest& task,
                              const driver::StateValues& state) -> std::unique_ptr<driver::AnyTaskDriver> {
    auto start = start_of(*setup, singleton, state);
    if (!start) return driver::make_task_driver<RefusedTask>(start.error().message);
    return driver::make_task_driver<HivaDriver>(*setup, task, std::move(start->graph), start->iteration,
                                                std::move(start->outcomes));
  };
  return d;
}

}  // namespace kaisha::hiva
