// The strategy catalog: what the rest of kaisha knows about each strategy
// without running it. The config loader, the command line, CompanyRuntime and
// the progress printer read it; none of them lists strategy names itself.
// kaisha's own strategies are entries in strategy_catalog.cpp (with their
// renderers beside it) and spawners in actors/strategy_kit/strategy_actors.cpp;
// a strategy written without CAF, by a program that links kaisha or by a
// test, adds both at once with actors::register_strategy, before anything
// reads the catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"
#include "runtime/strategy/task_tree.hpp"

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
};

// Adds `info` to the catalog. An error when its name or config section is
// already taken, or is not a plain lower-case name. Not thread-safe: register
// before a company starts or a config is loaded.
Status register_strategy_info(StrategyInfo info);

// Every strategy, in the order help texts list them.
const std::vector<StrategyInfo>& strategies();

// The entry named `name`, or nullptr.
const StrategyInfo* find_strategy(std::string_view name);

// Every strategy's name, in catalog order.
std::vector<std::string> strategy_names();

// "hashiru, effgen or auto": the names for an error message or a help text.
std::string strategy_names_text();

// The transcript lines of a strategy's own event (see StrategyInfo::render):
// the first strategy that owns the kind renders it; "" when none does.
std::string render_event(const msg::ProgressEvent& event, NumberText number);

// The summary line of a finished task's metadata: the entry named by its
// "strategy" key renders it; "" when the key is missing or names no strategy.
std::string summarise_result(const nlohmann::json& metadata, NumberText number);

// The tree of a task from its journal steps. The builder is that of the
// strategy that ran it: the one the closing metadata note names
// ({"metadata": {"strategy": ...}}: effgen's planner under `auto`), else the
// task row's; a strategy without a builder of its own that runs on others
// (auto) uses its first one's. When none has one, or a builder fails, the
// generic tree (strategy_trees.hpp). Never throws.
TaskTree build_task_tree(const TaskRecord& task, const std::vector<TaskStep>& steps);

}  // namespace kaisha::strategy
