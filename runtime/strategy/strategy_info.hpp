// What a strategy tells the rest of kaisha about itself (its catalog entry,
// runtime/catalog/strategy_catalog.hpp): its name and help, its config
// section and how to read it, how its events and results are shown and how
// its `history --tree` is built from the journal. Each strategy makes its
// entry in its own folder (runtime/<strategy>/entry/); nothing here runs it.
#pragma once

#include <any>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"
#include "runtime/strategy/task_tree.hpp"

namespace YAML {
class Node;
}

namespace kaisha::config {
class YamlReader;
}

namespace kaisha::strategy {

// How the caller writes a JSON number in a summary line (the progress
// printer's amounts: "0.3", never "0.30000000000000004").
using NumberText = std::string (*)(const nlohmann::json& number);

// A sub-kind of msg::EventKind::strategy that a strategy reports (its
// events carry {"strategy": name, "event": sub-kind} in their data), so that
// strategies' event names never collide and a node that does not know the
// strategy passes them on.
struct StrategyEvent {
  std::string name;
  // Journaled too: as a note step whose payload holds the event's data, so
  // that the strategy's `history --tree` is built from the journal alone.
  bool journaled = false;
  std::string help;
};

// A switch of the strategy: something a user turns on or off to change how
// it works (HASHIRU's agent creation, HALO's prompt refinement), so that
// help texts, `/switch` and an ablation runner find them all in one place.
struct StrategySwitch {
  std::string name;
  // Where a config file sets it ("switches.memory", "halo.use_planner").
  std::string config_key;
  bool on = true;  // its default
  std::string help;
};

// Switches that default to on, each set in a config file at
// "<prefix>.<name>" ("switches.memory", "halo.use_planner"), in the order given.
inline std::vector<StrategySwitch> switches_under(const std::string& prefix,
                                                  std::initializer_list<std::pair<const char*, const char*>> names) {
  std::vector<StrategySwitch> out;
  for (const auto& [name, help] : names) out.push_back(StrategySwitch{name, prefix + "." + name, true, help});
  return out;
}

struct StrategyInfo {
  // The value of `--strategy` and of the config's `strategy:`.
  std::string name;
  // One line for `kaisha run --help`.
  std::string help;
  // The config file's top-level section that configures it ("" when none).
  std::string config_section;
  // True when its workflow audits results with the judge (switched by
  // judge.subtasks); the CEO's final-answer audit is separate.
  bool audits_with_judge = false;
  // The strategies whose actors run its tasks: itself, or for `auto` the
  // strategies it chooses between per task.
  std::vector<std::string> runs_on;
  // One progress line summarising a finished task from the strategy's
  // TaskResult metadata; "" when the metadata holds nothing to say. Never
  // throws, whatever the metadata holds.
  std::string (*summary)(const nlohmann::json& metadata, NumberText number) = nullptr;
  // The transcript line(s) of a progress event of the strategy's own
  // structure (msg::EventGroup::strategy: effgen's plan, hashiru's
  // memories), each ending in a newline; "" for a kind it does not own.
  // Never throws, whatever the event's data holds.
  std::string (*render)(const msg::ProgressEvent& event, NumberText number) = nullptr;
  // The tree of one of its tasks from the task's journal steps, in journal
  // order (`kaisha history TASK --tree`; strategy_trees.hpp); nullptr when it
  // has none of its own. Never throws, whatever the steps hold.
  TaskTree (*tree)(const TaskRecord& task, const std::vector<TaskStep>& steps) = nullptr;
  // Its sub-kinds of msg::EventKind::strategy.
  std::vector<StrategyEvent> events;
  // Its switches.
  std::vector<StrategySwitch> switches;
  // Reads its config section (a YAML map; null or undefined when the file
  // has none, which gives the defaults) into the typed settings its spawner
  // takes back with config::strategy_settings<T>(). Errors name the place,
  // as "<file>:<line>: <section>.<key>: <what>". nullptr: the section is
  // handed on as JSON only (Config::strategy_sections).
  Result<std::any> (*read_settings)(const YAML::Node& section, const config::YamlReader& reader) = nullptr;
  // The model the judge audits with when judge.model is not set and this
  // strategy runs ("" for none of its own: then the CEO's model), from the
  // settings read_settings made (an empty std::any for a config built in code).
  std::string (*audit_model)(const std::any& settings) = nullptr;
};

}  // namespace kaisha::strategy
