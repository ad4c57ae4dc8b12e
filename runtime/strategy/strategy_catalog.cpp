#include "runtime/strategy/strategy_catalog.hpp"

#include "runtime/strategy/strategy_rendering.hpp"
#include "runtime/strategy/strategy_trees.hpp"

namespace kaisha::strategy {

using nlohmann::json;

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> all = {
      {"hashiru",
       "the CEO hires, asks and fires employees under a budget (HASHIRU)",
       "",
       false,
       {"hashiru"},
       nullptr,
       render_hashiru_event,
       hashiru_tree},
      {"effgen",
       "route by complexity, decompose, run subtasks in parallel, audit (effGen)",
       "effgen",
       true,
       {"effgen"},
       summarise_effgen_result,
       render_effgen_event,
       effgen_tree},
      {"pyramid",
       "agents as tools: a pyramid of agents from a YAML library, audited by its judge (InfiAgent)",
       "pyramid",
       false,
       {"pyramid"},
       summarise_pyramid_result,
       render_pyramid_event,
       pyramid_tree},
      {"auto",
       "per task: one agent via the CEO, or effgen's plan when the router decomposes",
       "",
       true,
       {"hashiru", "effgen"},
       nullptr,
       nullptr,
       nullptr},
  };
  return all;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& s : strategies())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const auto& s : strategies()) out.push_back(s.name);
  return out;
}

std::string strategy_names_text() {
  const auto names = strategy_names();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::string render_event(const msg::ProgressEvent& event, NumberText number) {
  for (const auto& s : strategies()) {
    if (!s.render) continue;
    std::string lines = s.render(event, number);
    if (!lines.empty()) return lines;
  }
  return "";
}

std::string summarise_result(const json& metadata, NumberText number) {
  if (!metadata.is_object()) return "";
  auto it = metadata.find("strategy");
  if (it == metadata.end() || !it->is_string()) return "";
  const StrategyInfo* s = find_strategy(it->get<std::string>());
  return s && s->summary ? s->summary(metadata, number) : "";
}

namespace {

// The strategy the task's closing metadata note names, or "".
std::string ran_on(const std::vector<TaskStep>& steps) {
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (it->kind != "note" || !it->payload.is_object()) continue;
    auto m = it->payload.find("metadata");
    if (m == it->payload.end() || !m->is_object()) continue;
    auto s = m->find("strategy");
    if (s != m->end() && s->is_string()) return s->get<std::string>();
  }
  return "";
}

}  // namespace

TaskTree build_task_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) {
  const StrategyInfo* s = find_strategy(ran_on(steps));
  if (!s || !s->tree) s = find_strategy(task.strategy);
  if (s && !s->tree && !s->runs_on.empty()) s = find_strategy(s->runs_on.front());
  if (s && s->tree) {
    try {
      return s->tree(task, steps);
    } catch (...) {
      // A builder's bug must not hide the task: the generic tree still shows it.
    }
  }
  return generic_tree(task, steps);
}

}  // namespace kaisha::strategy
