// validate_python_tools: loads generated Python tools in the sandbox the way
// HASHIRU's ToolManager does (import the module, instantiate the class named
// by __all__[0], read its inputSchema) and reports, per tool, either its
// spec or the loader's error. The work is done by
// data/sandbox/tool_validator.py; nothing of the tool runs on the host.
//
// Checks: the source compiles; __all__ names a class; the class can be
// instantiated; inputSchema has a string name and description and a JSON
// Schema object as parameters; run is callable; every declared dependency
// is importable (nothing is installed). Blocking (a child process).
#pragma once

#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/sandbox/limits.hpp"

namespace kaisha::tools {

// A Python tool file to validate: its module name, its name in tracebacks, its code.
struct ToolCode {
  std::string module;    // the module name (the file's stem, e.g. "CurrentTimeTool")
  std::string filename;  // shown in tracebacks, e.g. "src/tools/user_tools/CurrentTimeTool.py"
  std::string code;
};

struct ValidatedTool {
  std::string entry_class;  // __all__[0]
  llm::ToolSpec spec;
  json costs = json::object();  // declared cost keys of inputSchema
};

// One Result per source, in order: the tool, or an Error (code
// "tool_invalid") whose message is the loader error, e.g.
// "AttributeError: module 'CurrentTimeTool' has no attribute '__all__'".
// The outer Error says the sandbox itself could not do the job (unavailable,
// killed by a limit); then no tool is considered valid (fail closed).
Result<std::vector<Result<ValidatedTool>>> validate_python_tools(const std::vector<ToolCode>& sources,
                                                                 const sandbox::SandboxLimits& limits);

}  // namespace kaisha::tools
