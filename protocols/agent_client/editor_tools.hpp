// EditorTools wraps one of the company's tool sources for `kaisha editor`
// (the company's built-in and created tools, and the tools the pyramid, HALO
// and HiVA run their agents' work with):
//
// - Before a file write or a code run (needs_permission) it asks the
//   editor's user through session/request_permission. A refusal is honoured:
//   the tool does not run and the call answers with an error saying the user
//   refused, which the company journals as that call's result.
// - When the editor offers fs/read_text_file and fs/write_text_file, ReadFile
//   and WriteFile go to the editor (so unsaved buffers are read, and the
//   editor shows every change), on paths inside the session's working
//   directory; otherwise they go to kaisha's own confined file layer.
// - When the editor offers terminals, PythonSandboxTool's code runs in one
//   (terminal/create with `python3 -c CODE` in the session's working
//   directory, shown in the tool call, waited for, read and released), so
//   the user sees it run in the project as it is; it is killed after
//   `code_timeout_ms`. Otherwise it runs in kaisha's own sandbox.
//
// call() never blocks: the editor's answers come back on the reader's thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "runtime/company/tool_source.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::agent_client {

// What the tools need of the editor connection (EditorAgent).
class EditorBridge {
 public:
  virtual ~EditorBridge() = default;
  // Asks the editor whether `tool` may run with `arguments` in the call
  // `ctx`; `done(true, "")` lets it run, `done(false, why)` does not. Called
  // once, from any thread.
  virtual void ask_permission(const company::ToolCallContext& ctx, const std::string& tool, const json& arguments,
                              std::function<void(bool allowed, std::string why)> done) = 0;
  // The session's working directory, and whether its editor reads and
  // writes files for the agent ("" / false for an unknown session).
  virtual std::string cwd(const std::string& session_id) = 0;
  virtual bool client_reads(const std::string& session_id) = 0;
  virtual bool client_writes(const std::string& session_id) = 0;
  virtual bool client_terminals(const std::string& session_id) = 0;
  // Shows terminal `terminal_id` in the tool call in progress for `tool` in
  // the call `ctx` (a tool_call_update whose content is the terminal).
  virtual void show_terminal(const company::ToolCallContext& ctx, const std::string& tool,
                             const std::string& terminal_id) = 0;
  // Sends `method` to the editor; `done` gets its result or an error.
  virtual void call_client(const std::string& method, json params, std::function<void(Result<json>)> done) = 0;
};

// Whether a call of `tool` from a source of origin `origin` needs the user's
// permission: the built-ins' WriteFile and PythonSandboxTool, every created
// tool (origin "user"), the pyramid's writes, moves and code runs, and HiVA's
// generated tools (run or loaded).
bool needs_permission(const std::string& origin, const std::string& tool);

// `path` (relative to `cwd`, or absolute) as an absolute path inside `cwd`;
// an error when it leaves it.
Result<std::string> path_inside(const std::string& cwd, const std::string& path);

struct EditorToolOptions {
  int64_t code_timeout_ms = 30000;      // a code run in the editor's terminal is killed after this
  int64_t output_byte_limit = 1 << 20;  // the terminal output kept (the editor cuts from the front)
};

std::shared_ptr<company::ToolSource> wrap_for_editor(std::shared_ptr<company::ToolSource> inner,
                                                     std::shared_ptr<EditorBridge> bridge,
                                                     EditorToolOptions options = {});

}  // namespace kaisha::agent_client
