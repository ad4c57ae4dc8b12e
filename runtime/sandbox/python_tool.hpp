// run_python_tool: the JSON protocol for generated Python tools. The module
// source and arguments travel over stdin to data/sandbox/tool_runner.py
// (passed with `python3 -c`, so no host file needs to be visible inside),
// which runs EntryClass().run(**args) in the sandbox and prints one JSON line.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/sandbox/limits.hpp"

namespace kaisha::sandbox {

// What a tool may reach beyond its workspace: the host environment variables
// named in env_allow (its credentials, hashiru.md §9 item 44; nothing else of
// the host env passes) and, when `network` is set, the network.
struct ToolAccess {
  std::vector<std::string> env_allow;
  bool network = false;
};

// The tool's return value on success. Errors: the run_sandboxed codes when
// the sandbox cannot be built; "io" when a file cannot be read; "timeout"
// when the wall clock ran out; "limit" when the run went over its memory,
// process or workspace disk limit (the message names which and its value); "tool_error" when the tool raised (message
// and exception type included); "tool_protocol" when the output is not the one JSON line expected (a crash, a kill by a
// limit, a bad result value).
Result<json> run_python_tool(const std::string& code_file, const std::string& entry_class, const json& args_json,
                             const std::string& workspace, const SandboxLimits& limits, const ToolAccess& access = {});

}  // namespace kaisha::sandbox
