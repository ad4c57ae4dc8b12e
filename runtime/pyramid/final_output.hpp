// FinalOutput: how a pyramid agent ends a call (InfiAgent's Output Control
// protocol, infiagent.md §3.9 and §10 items 24, 45, 48). An agent's last
// act is the `final_output` tool, whose arguments are
//   {"status": "success" | "error",
//    "output": "what was done, where the results are",
//    "error_information": "why it failed (status error only)",
//    "files": [{"path": "code_run/main.py", "description": "..."}]}   // optional
// and that JSON, nothing else, is what the caller gets back as its tool
// result. `files` are (addr, desc) pairs: paths relative to the task's
// workspace, never absolute and never leaving it.
//
// parse_final_output() refuses anything else with a message written for the
// model that sent it (the strategy re-prompts it a bounded number of times
// with that message, then ends the call with failed_output()).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::pyramid {

struct FileRef {
  std::string path;  // relative to the task workspace
  std::string description;
};

struct FinalOutput {
  bool success = false;
  std::string output;
  std::string error_information;  // non-empty exactly when !success
  std::vector<FileRef> files;
  // The judge's verdict on it (its final_output JSON), when the strategy had
  // it audited; null otherwise. Shown as "judge".
  json verdict;
  // It came from failed_output(): the call ended without a final_output of
  // its own (a refused hire, a model error, its turn limit). A judge's
  // broken call is a failure to rule, never a rejection.
  bool broken = false;

  // The JSON above ("files" only when there are some, "judge" only with a verdict).
  json to_json() const;
};

// A list of (addr, desc) pairs, `key` naming it in errors: at most
// `max_entries` objects, each with a path relative to the task workspace
// (normalised; never absolute, never leaving it, never empty) and a
// non-blank description. Errors (code "file_refs") name the entry, e.g.
// "files[2] (out.md) needs a description of what the file holds".
Result<std::vector<FileRef>> parse_file_refs(const json& list, const std::string& key, size_t max_entries);

// Limits on what an agent may hand back inline; larger results belong in
// a workspace file passed by reference (infiagent.md §10 item 37).
struct FinalOutputLimits {
  size_t max_output_bytes = 16 * 1024;
  size_t max_files = 256;
};

// The final_output call's `arguments` text, checked. Errors (code
// "final_output") say what to change, e.g. "status must be \"success\" or
// \"error\", not \"done\"".
Result<FinalOutput> parse_final_output(std::string_view arguments, const FinalOutputLimits& limits = {});

// The error a caller gets when an agent ended without a valid final_output
// (it ran out of turns, never called it, or kept sending invalid ones).
FinalOutput failed_output(std::string why);

}  // namespace kaisha::pyramid
