// PyramidTools: the level-0 tools of the pyramid strategy (InfiAgent,
// infiagent.md §10 items 46–48), offered as a ToolSource (origin "pyramid"):
// file_read, file_write, dir_list, dir_create, file_move, execute_code,
// execute_shell, pip_install and web_search, with specs (and final_output's,
// which the strategy itself handles) in data/tools/pyramid_tools.json.
//
// Every call is confined to its task's directory,
// <workspace_root>/.tasks/<session>/<task id> (beside the sessions'
// workspaces, which sandboxed code can write, not inside them), through a FileView (the one
// descriptor-based file layer: no symlink followed, no '..', no absolute
// path); a task_id argument that names another task is refused. Programs run
// under bubblewrap with that directory as /workspace and no network, so
// pip_install fails with the reason. check_files, branch_open,
// branch_close and branch_drop (pyramid_driver.hpp's kCheckFilesTool,
// kBranchOpenTool, kBranchCloseTool and kBranchDropTool) are served too but
// not offered to models. A call whose context names a branch works in that
// branch, a copy of the task's directory at
// <workspace_root>/.tasks/<session>/.branches/<task>/<branch>. A close with
// a record is a commit of the task's history
// (<workspace_root>/.tasks/<session>/.history/<task>, workspace_history.hpp).
//
// call() never blocks: file and sandbox work runs on the source's worker
// threads, a search on its engine's HTTP loop.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/company/tool_source.hpp"
#include "runtime/core/result.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/tools/file_tools.hpp"
#include "runtime/tools/web_search.hpp"

namespace kaisha::tools {

struct PyramidToolsOptions {
  std::string workspace_root;  // sessions' workspaces below it
  FileLimits file_limits;
  sandbox::SandboxLimits code_limits;  // execute_code and execute_shell
  // web_search: a search engine given here, else the one named (as
  // tools.web_search: "" disabled, "searxng" at search_url).
  std::shared_ptr<SearchEngine> search;
  std::string search_engine;
  std::string search_url;
  int64_t search_timeout_ms = 10000;
  int workers = 2;
};

class PyramidTools : public company::ToolSource {
 public:
  // Reads the specs.
  static Result<std::shared_ptr<PyramidTools>> create(PyramidToolsOptions options);
  ~PyramidTools() override;

  std::string origin() const override { return "pyramid"; }
  std::vector<llm::ToolSpec> specs() const override;
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;
  // What the specs mark idempotent, and check_files, which only reads: a
  // resumed task runs them again rather than telling the model they were cut off.
  bool repeatable(const std::string& name) const override;

  // The directory of task `task_id` in session `session_id` (created if missing).
  Result<std::string> task_directory(const std::string& session_id, const std::string& task_id) const;

 private:
  struct Impl;
  explicit PyramidTools(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::tools
