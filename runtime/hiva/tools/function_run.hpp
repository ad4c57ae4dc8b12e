// run_tool_function: one sandboxed run of a HiVA agent tool, Python source
// defining tool_function(input_data, **kwargs) (hiva.md §7.3, §9). The code
// and input travel over stdin to data/sandbox/function_runner.py (passed with
// `python3 -c`, so no host file is visible inside), which loads the code,
// checks tool_function and, in run mode, calls tool_function(input).
//
// Each run gets a fresh private tmpfs as its workspace (gone when the run
// ends), no network and none of the host's environment variables. Every
// outcome, including a sandbox that cannot be built, comes back as a
// FunctionRun whose kind says what happened and whether running the same
// code again could end differently. Blocking: a child process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/sandbox/limits.hpp"

namespace kaisha::hiva {

enum class RunMode {
  run,       // load, check, call tool_function(input)
  validate,  // load and check only; tool_function is not called
};

// What became of one run.
enum class RunKind {
  ok,
  tool_error,  // the code raised (loading, the checks or the call): deterministic
  timeout,     // the wall clock ran out and the run was killed
  limit,       // stopped for going over a memory, process or disk limit
  crash,       // died (signal, non-zero exit) without a reply
  protocol,    // exited 0 without a readable reply (it wrote over or closed it)
  sandbox,     // the sandbox could not be built or the runner is missing: nothing ran
};

// "ok", "tool_error", "timeout", ...: the word the ToolResult and the metrics use.
const char* run_kind_name(RunKind kind);

// Whether a failure of this kind may pass when the same code runs again:
// timeouts, limits and crashes can depend on the machine's load; an
// exception the tool raised, a broken reply or a missing sandbox do not.
bool retryable(RunKind kind);

struct FunctionRunRequest {
  RunMode mode = RunMode::run;
  std::string code;
  std::string input;  // tool_function's input_data (run mode)
  // Top-level modules the code may not import (e.g. "os", "subprocess"):
  // such code is refused as a tool_error ("ForbiddenImport: line N imports
  // os; ...") before any of it runs. Only literal imports are seen; the
  // sandbox, not this list, is what confines a tool.
  std::vector<std::string> forbidden_modules;
  // The result's text (a str as it is, any other value as JSON) is cut to
  // this many bytes at a code-point boundary.
  size_t max_result_bytes = 64 * 1024;
  // wall_timeout_ms is the run's timeout; max_output_bytes is raised when
  // needed so that a result of max_result_bytes always fits in the reply.
  sandbox::SandboxLimits limits;
};

struct FunctionRun {
  RunKind kind = RunKind::sandbox;
  // ok: the tool's return value; a string when it returned a str, a value
  // JSON cannot hold (then str(value)), or when the text was cut.
  json result;
  bool truncated = false;
  std::string signature;  // ok: tool_function's signature, e.g. "(input_data, **kwargs)"
  // Otherwise: "<ExcType>: <message>" for a tool_error, else what happened
  // (the limit, the signal, the sandbox's error).
  std::string error;
  std::string traceback;  // tool_error: the tool's frames; crash/protocol: stderr's tail
  int64_t wall_ms = 0;    // how long the sandboxed run took
};

FunctionRun run_tool_function(const FunctionRunRequest& request);

// The text of a result for a prompt: a string as it is, any other JSON value dumped.
std::string result_text(const json& result);

}  // namespace kaisha::hiva
