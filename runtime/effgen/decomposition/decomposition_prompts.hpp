// The four decomposition prompts of effgen.md §4.3 (one per multi-agent
// strategy; single has none), kept as templates in
// prompts/effgen/decompose_<strategy>.md with a {{task}} placeholder, so
// they can be tuned without recompiling.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/result.hpp"
#include "runtime/prompt/prompt_template.hpp"
#include "runtime/effgen/routing/strategy.hpp"

namespace kaisha::planning {

// <root>/prompts/effgen/decompose_<parallel|sequential|hybrid|hierarchical>.md
std::string decomposition_prompt_path(routing::Strategy strategy, const std::string& root = data_root());

// Error (code "prompt") naming the path if the file is missing or unreadable.
Result<PromptTemplate> load_decomposition_prompt(routing::Strategy strategy, const std::string& root = data_root());

// The prompt for `task`, ready to send as the user message.
Result<std::string> render_decomposition_prompt(routing::Strategy strategy, std::string_view task,
                                                const std::string& root = data_root());

}  // namespace kaisha::planning
