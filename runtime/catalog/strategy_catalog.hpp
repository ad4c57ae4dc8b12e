// The strategy catalog: what the rest of kaisha knows about each strategy
// without running it. The config loader, the command line, CompanyRuntime and
// the progress printer read it; none of them lists strategy names itself.
// Each of kaisha's own strategies makes its entry in its own folder
// (runtime/<strategy>/entry/<strategy>_entry.hpp) and the catalog collects
// them in strategy_catalog.cpp; their spawners are in
// actors/strategy_kit/strategy_actors.cpp. A strategy written without CAF,
// by a program that links kaisha or by a test, adds both at once with
// actors::register_strategy, before anything reads the catalog.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/result.hpp"
#include "runtime/strategy/strategy_info.hpp"

namespace kaisha::strategy {

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
