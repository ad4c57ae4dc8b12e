// UserTools: tools written in Python — the ones kaisha ships as examples
// (data/tools/default_tools) and the ones the CEO creates — offered as a
// ToolSource (origin "user") together with HASHIRU's ToolCreator and
// ToolDeletor (hashiru.md §2.7, §9 items 38-45).
//
// ToolCreator(name, tool_code) loads the code in the sandbox
// (tool_validator.hpp). A tool that does not load is not kept, and the CEO
// gets HASHIRU's answer: "ToolCreator with {args} doesn't follow the required
// format, please read the other tool implementations for reference." plus the
// loader error. A tool that loads is written to <user_dir>/<name>.py and is
// in specs() at once, so the CEO sees it on its next model call. A new
// source over the same user_dir loads the persisted tools again.
// ToolDeletor(name, file_path) deletes only files directly inside
// src/tools/user_tools/ ("File path must start with src/tools/user_tools/").
//
// Every call of a Python tool runs under bubblewrap (run_python_tool) with
// the session's workspace at /workspace and only the environment variables
// named in env_allow (credentials). Blocking work runs on the source's
// workers. The tool_invocation switch refuses every call, tool_creation
// refuses ToolCreator, with the HASHIRU texts.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/company/tool_source.hpp"
#include "runtime/company/tool_versions.hpp"
#include "runtime/core/result.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/tools/tool_switches.hpp"

namespace kaisha::tools {

// Where the file tools and ToolDeletor show the two tool directories.
inline const char* kUserToolsPrefix = "src/tools/user_tools";
inline const char* kDefaultToolsPrefix = "src/tools/default_tools";

struct UserToolsOptions {
  std::string user_dir;                    // created tools; made if missing
  std::string default_dir;                 // shipped tools, never written ("" = none)
  std::string workspace_root;              // a call runs in <workspace_root>/<session>
  sandbox::SandboxLimits limits;           // each tool call
  sandbox::SandboxLimits load_limits;      // each validation
  std::vector<std::string> env_allow;      // host variables tools may read
  bool network = false;                    // tool calls (never loading) may use the network
  std::set<std::string> reserved_names;    // other sources' tools: not creatable
  std::shared_ptr<ToolSwitches> switches;  // null = always on
  int workers = 2;
};

class UserTools : public company::ToolSource {
 public:
  // Loads (validates) every *.py of both directories. A tool that does not
  // load is left out and reported by load_errors(); an unusable sandbox
  // leaves every Python tool out (fail closed) but ToolCreator still
  // answers, with the sandbox's error.
  static Result<std::shared_ptr<UserTools>> create(UserToolsOptions options);
  ~UserTools() override;

  std::string origin() const override { return "user"; }
  // A created tool's code may do anything: never run twice unasked.
  bool repeatable(const std::string&) const override { return false; }
  std::vector<llm::ToolSpec> specs() const override;
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;
  // The inputSchema's cost keys (hashiru.md §3.3: WeatherApi declares invoke_resource_cost).
  company::ToolCost cost(const std::string& name) const override;
  // A created tool: category created, the version of its code that runs
  // (every version is kept: versions()); a shipped one: category sandbox,
  // version 1. Both with the sandbox's wall clock as timeout.
  company::ToolMetadata metadata(const std::string& name) const override;
  // Every version of created tool `name`, oldest first (empty when unknown).
  company::ToolVersions versions(const std::string& name) const;

  // "<file>: <why>" for each tool on disk that did not load at start.
  std::vector<std::string> load_errors() const;

 private:
  struct Impl;
  explicit UserTools(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::tools
