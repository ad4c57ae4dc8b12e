#include "runtime/catalog/strategy_catalog.hpp"

#include <utility>

#include "runtime/effgen/entry/effgen_entry.hpp"
#include "runtime/halo/entry/halo_entry.hpp"
#include "runtime/hiva/entry/hiva_entry.hpp"
#include "runtime/hashiru/entry/hashiru_entry.hpp"
#include "runtime/messages/strategy_event.hpp"
#include "runtime/pyramid/entry/pyramid_entry.hpp"
#include "runtime/strategy/generic_tree.hpp"

namespace kaisha::strategy {

using nlohmann::json;

namespace {

// kaisha's own strategies, each made in its own folder, then `auto`, which
// is theirs combined: a task effGen's router gives one agent goes to the CEO,
// others to effGen's planner.
std::vector<StrategyInfo> builtin_strategies() {
  StrategyInfo automatic;
  automatic.name = "auto";
  automatic.help = "per task: one agent via the CEO, or effgen's plan when the router decomposes";
  automatic.audits_with_judge = true;
  automatic.runs_on = {"hashiru", "effgen"};
  return {hashiru::catalog_entry(), effgen::catalog_entry(), pyramid::catalog_entry(),
          halo::catalog_entry(),    hiva::catalog_entry(),   std::move(automatic)};
}

std::vector<StrategyInfo>& catalog() {
  static std::vector<StrategyInfo> all = builtin_strategies();
  return all;
}

bool plain_name(const std::string& s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return s[0] >= 'a' && s[0] <= 'z';
}

}  // namespace

const std::vector<StrategyInfo>& strategies() { return catalog(); }

Status register_strategy_info(StrategyInfo info) {
  if (!plain_name(info.name))
    return Error{"strategy", "strategy name '" + info.name + "': use 1-32 lower-case letters, digits, '_' or '-'"};
  if (!info.config_section.empty() && !plain_name(info.config_section))
    return Error{"strategy", "strategy " + info.name + ": config section '" + info.config_section +
                                 "': use 1-32 lower-case letters, digits, '_' or '-'"};
  for (const auto& s : catalog()) {
    if (s.name == info.name) return Error{"strategy", "a strategy named '" + info.name + "' is already registered"};
    if (!info.config_section.empty() && s.config_section == info.config_section)
      return Error{"strategy", "strategy " + info.name + ": config section '" + info.config_section +
                                   "' is already strategy " + s.name + "'s"};
  }
  if (info.runs_on.empty()) info.runs_on = {info.name};
  catalog().push_back(std::move(info));
  return Status::Ok();
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
  if (event.kind == msg::EventKind::strategy) {
    // The entry its data names renders it; one that does not (or a strategy
    // this process does not know) gets the plain line.
    const msg::StrategyEventName n = msg::strategy_event_name(event.data);
    const StrategyInfo* s = find_strategy(n.strategy);
    if (s && s->render)
      if (std::string lines = s->render(event, number); !lines.empty()) return lines;
    const std::string who = event.agent.empty() ? (n.strategy.empty() ? "strategy" : n.strategy) : event.agent;
    const std::string what = n.strategy.empty() ? "event" : n.strategy + "/" + n.event;
    return "[" + who + "] " + what + (event.text.empty() ? "" : ": " + event.text) + "\n";
  }
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
