// make_tool_sources: the CEO's tool sources as the config describes them
// — the built-in tools and the Python tools (shipped and created) — and the
// tool switches they obey, for the runtime to hand to the CEO and to flip on
// /switch.
//
// Defaults (tools: section of the config): workspaces under
// <store dir>/kaisha-work/<session>, created tools in <store dir>/kaisha-tools,
// shipped tools from data/tools/default_tools. The file tools show the two
// tool directories read-only at src/tools/default_tools and
// src/tools/user_tools.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/tools/tool_switches.hpp"

namespace kaisha::tools {

class PyramidTools;  // pyramid_tools.hpp

struct ToolSetup {
  std::vector<std::shared_ptr<company::ToolSource>> sources;
  std::shared_ptr<ToolSwitches> switches;
  std::vector<std::string> warnings;  // Python tools on disk that did not load
};

// Where the config puts the task workspaces (<root>/<session>) and the
// created tools: tools.workspace_root and tools.user_tools_dir, by default
// kaisha-work and kaisha-tools beside the store.
std::string workspace_root_of(const config::Config& config);
std::string user_tools_dir_of(const config::Config& config);

// `taken` are names of tools other sources offer (the CEO's own tools):
// ToolCreator refuses them.
Result<ToolSetup> make_tool_sources(const config::Config& config, const std::vector<llm::ToolSpec>& taken);

// The built-in tools alone (builtin_tools.hpp), as make_tool_sources makes
// them, for a strategy that offers some of them to its agents (HALO's code
// tool). They obey the config's tool_invocation switch as it was at start.
Result<std::shared_ptr<company::ToolSource>> make_builtin_tools(const config::Config& config);

// The pyramid strategy's level-0 tools, in the same workspaces (below each
// session's tasks/) with the same file, sandbox and search settings.
Result<std::shared_ptr<PyramidTools>> make_pyramid_tools(const config::Config& config);

}  // namespace kaisha::tools
