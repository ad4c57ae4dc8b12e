#include "runtime/tools/pyramid_tools.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/company/tool_spec_file.hpp"
#include "runtime/core/confined_fs.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/http/http_client.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "runtime/tools/file_stamps.hpp"
#include "runtime/tools/file_view.hpp"
#include "runtime/tools/task_relative_paths.hpp"
#include "runtime/tools/workspace_branch.hpp"
#include "runtime/tools/workspace_history.hpp"
#include "runtime/tools/worker_pool.hpp"

namespace kaisha::tools {

using company::ToolResult;
using Done = std::function<void(ToolResult)>;

namespace {

constexpr const char* kCheckFiles = "check_files";           // pyramid::kCheckFilesTool
constexpr const char* kBranchOpen = "branch_open";           // pyramid::kBranchOpenTool
constexpr const char* kBranchClose = "branch_close";         // pyramid::kBranchCloseTool
constexpr const char* kBranchDrop = "branch_drop";           // pyramid::kBranchDropTool
constexpr const char* kJudgeExecute = "judge_execute_code";  // pyramid::kJudgeExecuteTool

std::string str_arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

bool has_string(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string();
}

// The file tools' messages name HASHIRU's tools; a pyramid agent knows these.
ToolResult renamed(ToolResult r) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"ListFiles", "dir_list"}, {"ReadFile", "file_read"}, {"WriteFile", "file_write"}};
  for (const auto& [from, to] : kNames) {
    for (size_t at = r.message.find(from); at != std::string::npos; at = r.message.find(from, at))
      r.message.replace(at, std::string(from).size(), to);
  }
  return r;
}

// A program's run as a tool result: a program that fails is still a run
// (its output and exit code say how it went); a sandbox that cannot be
// built, a limit or the timeout is an error.
// A program that failed, stopped at a limit or ran out of time is the
// caller's program, not the tool failing: its class is invalid_input, so
// that an agent debugging its code does not open the tool's circuit breaker
// for the whole company (company/tool_health.hpp). Only a sandbox that could
// not run anything counts against the tool.
ToolResult program_failed(std::string message, json out) {
  return company::with_error_class(ToolResult::error(std::move(message), std::move(out)),
                                   company::ToolErrorClass::invalid_input);
}

ToolResult run_result(const std::string& tool, const Result<sandbox::SandboxResult>& r, int64_t timeout_ms) {
  if (!r) return ToolResult::error(tool + ": the sandbox could not run it: " + r.error().message);
  json out = {{"stdout", utf8::repair(r->stdout_data)}, {"stderr", utf8::repair(r->stderr_data)}};
  if (r->limit) return program_failed(tool + ": stopped: " + r->limit->message + ".", out);
  if (r->timed_out)
    return program_failed(tool + ": stopped after " + std::to_string(timeout_ms / 1000) +
                              " s (a program waiting for input or a window never ends by itself)",
                          out);
  out["return_code"] = r->exit_code;
  if (r->output_truncated) out["output_truncated"] = true;
  if (r->exit_code != 0) return program_failed(tool + ": exited with code " + std::to_string(r->exit_code), out);
  return ToolResult::success(tool + ": ran successfully", out);
}

}  // namespace

constexpr const char* kTasksDir = ".tasks";
// Branches of a task live in <sessions>/.branches/<task>/<branch>: beside
// the tasks' directories (a task id never starts with '.'), out of reach of
// the task's own tools.
constexpr const char* kBranchesDir = ".branches";

struct PyramidTools::Impl {
  PyramidToolsOptions options;
  std::vector<llm::ToolSpec> specs;
  // Declared before the pool: a search's HTTP loop ends first.
  WorkerPool pool;
  std::unique_ptr<http::HttpClient> http;  // the search engine's, when kaisha made it

  explicit Impl(PyramidToolsOptions o) : options(std::move(o)), pool(options.workers) {}

  Result<std::string> task_dir(const std::string& session, const std::string& task) const {
    if (task.empty()) return Error{"path", "no task is running: the pyramid's tools work in a task's directory"};
    for (char c : task)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        return Error{"path", "task id '" + task + "' cannot name a directory"};
    if (task[0] == '.') return Error{"path", "task id '" + task + "' cannot name a directory (it starts with '.')"};
    // Beside the sessions' workspaces, not in them: a program sandboxed in a
    // session's workspace (a HASHIRU tool) could otherwise plant a symlink
    // where a task's directory is about to be made.
    auto sessions = session_workspace(options.workspace_root + "/" + kTasksDir, session);
    if (!sessions) return sessions.error();
    return *sessions + "/" + task;
  }

  // The task's directory, or its branch `branch` ("" = the directory).
  Result<std::string> work_dir(const std::string& session, const std::string& task, const std::string& branch) const {
    auto dir = task_dir(session, task);
    if (!dir || branch.empty()) return dir;
    for (char c : branch)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
        return Error{"path", "branch '" + branch + "' cannot name a directory"};
    const std::string sessions = dir->substr(0, dir->size() - task.size() - 1);
    return sessions + "/" + kBranchesDir + "/" + task + "/" + branch;
  }

  // branch_drop: the branches' directories go once their fork has ended (no
  // program runs in them any more); what the history needs is in its blobs.
  ToolResult drop_branches(const std::string& session, const std::string& task, const json& args) const {
    auto it = args.find("branches");
    if (it == args.end() || !it->is_array()) return ToolResult::error("branch_drop: 'branches' must be a list");
    int dropped = 0;
    for (const auto& b : *it) {
      auto dir = b.is_string() && !b.get<std::string>().empty() ? work_dir(session, task, b.get<std::string>())
                                                                : Result<std::string>(Error{"path", "not a branch"});
      if (!dir) return ToolResult::error("branch_drop: " + b.dump() + ": " + dir.error().message);
      std::error_code ec;
      const auto removed = std::filesystem::remove_all(*dir, ec);
      if (ec) return ToolResult::error("branch_drop: " + b.get<std::string>() + ": " + ec.message());
      dropped += removed > 0;
    }
    return ToolResult::success("branch_drop: " + std::to_string(dropped) + " branches removed");
  }

  // A commit's fields from branch_close's "record" argument.
  static Commit commit_of(const json& record, const std::string& branch) {
    Commit c;
    c.key = branch;
    c.branch = branch;
    c.agent = str_arg(record, "agent");
    c.model = str_arg(record, "model");
    c.why = str_arg(record, "why");
    c.q = record.value("q", 0.0);
    if (record.contains("verdict")) c.verdict = record["verdict"];
    c.at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
    return c;
  }

  // branch_open and branch_close: the driver's, never a model's.
  ToolResult on_branch(const std::string& name, const std::string& session, const std::string& task,
                       const json& args) const {
    if (name == kBranchDrop) return drop_branches(session, task, args);
    const std::string branch = str_arg(args, "branch");
    if (branch.empty()) return ToolResult::error(name + ": 'branch' is required");
    auto branch_dir = work_dir(session, task, branch);
    if (!branch_dir) return ToolResult::error(name + ": " + branch_dir.error().message);
    // A branch is made afresh: an open cut short by a kill (and repeated by
    // the resume) leaves no file of its partial copy behind.
    if (name == kBranchOpen) {
      std::error_code ec;
      std::filesystem::remove_all(*branch_dir, ec);
      if (ec) return ToolResult::error(name + ": cannot clear " + branch + ": " + ec.message());
    }
    auto main_dir = work_dir(session, task, str_arg(args, name == kBranchOpen ? "from" : "into"));
    if (!main_dir) return ToolResult::error(name + ": " + main_dir.error().message);
    auto branch_view = FileView::open(*branch_dir);
    if (!branch_view) return ToolResult::error(name + ": " + branch_view.error().message);
    auto main_view = FileView::open(*main_dir);
    if (!main_view) return ToolResult::error(name + ": " + main_view.error().message);
    if (name == kBranchOpen) {
      auto copied = copy_tree(*main_view, *branch_view);
      if (!copied) return ToolResult::error(name + ": " + copied.error().message);
      return ToolResult::success(name + ": " + std::to_string(copied->size()) + " files copied to " + branch,
                                 json(*copied));
    }
    Manifest base;
    if (auto it = args.find("base"); it != args.end() && it->is_object())
      for (const auto& [path, hash] : it->items())
        if (hash.is_string()) base[path] = hash.get<std::string>();
    const bool merge = args.value("merge", false);
    // With "record", the close is a commit of the task's history: a merge
    // commit, or a rejected one. Recorded once: a close repeated after a
    // resume finds its commit and changes nothing.
    const json record = args.value("record", json());
    std::optional<WorkspaceHistory> history;
    if (record.is_object()) {
      auto dir = task_history_dir(options.workspace_root, session, task);
      if (!dir) return ToolResult::error(name + ": " + dir.error().message);
      auto opened = WorkspaceHistory::open(*dir);
      if (!opened) return ToolResult::error(name + ": " + opened.error().message);
      history = std::move(opened).value();
      auto done = history->by_key(branch);
      if (!done) return ToolResult::error(name + ": " + done.error().message);
      if (*done) {
        json out = (*done)->output.is_object() ? (*done)->output : (*done)->changes;
        out["merged"] = (*done)->kind == "merge";
        out["commit"] = (*done)->id;
        return ToolResult::success(
            name + ": " + branch + " was recorded already as commit " + std::to_string((*done)->id), out);
      }
    }
    auto now = manifest_of(*branch_view);
    if (!now) return ToolResult::error(name + ": " + now.error().message);
    ChangeSet changes = changes_between(base, *now);
    json out = changes.to_json();
    // Each changed file's content hash, so that the driver can tell two
    // branches writing the same file apart from two writing it alike.
    json hashes = json::object();
    for (const auto* list : {&changes.added, &changes.modified})
      for (const auto& p : *list) hashes[p] = now->at(p);
    out["hashes"] = std::move(hashes);
    out["merged"] = false;
    if (!merge) {
      if (history) {
        Commit meta = commit_of(record, branch);
        meta.output = out;
        auto c = history->record_rejected(*branch_view, changes, std::move(meta));
        if (!c) return ToolResult::error(name + ": recording " + branch + ": " + c.error().message, out);
        out["commit"] = c->id;
      }
      return ToolResult::success(name + ": " + branch + " closed", out);
    }
    // What the task's directory holds before the merge is committed first,
    // so that a revert can go back to just before it.
    if (history)
      if (Status s = history->begin_merge(*main_view, branch, commit_of(record, branch).at_ms); !s)
        return ToolResult::error(name + ": recording the task's directory: " + s.error().message, out);
    MergeResult merged;
    Status s = merge_changes(*branch_view, *main_view, base, changes, merged);
    out["conflicts"] = merged.conflicts;
    if (!s) {
      std::string written;
      for (const auto& p : merged.merged) written += (written.empty() ? "" : ", ") + p;
      return ToolResult::error(name + ": merging " + branch + ": " + s.error().message +
                                   (written.empty() ? "; nothing was written" : "; already written: " + written),
                               out);
    }
    out["merged"] = true;
    if (history) {
      Commit meta = commit_of(record, branch);
      meta.output = out;
      auto c = history->record_merge(*main_view, std::move(meta));
      if (!c) return ToolResult::error(name + ": recording the merge of " + branch + ": " + c.error().message, out);
      out["commit"] = c->id;
    }
    return ToolResult::success(name + ": " + branch + " merged" +
                                   (merged.conflicts.empty() ? ""
                                                             : " (" + std::to_string(merged.conflicts.size()) +
                                                                   " files changed meanwhile kept as they were)"),
                               out);
  }

  void on_pool(const std::string& tool, Done done, std::function<ToolResult()> work) {
    pool.submit_tool(std::move(work), std::move(done), [tool](bool ran, const std::string& why) {
      return ToolResult::error(tool + (ran ? ": failed: " : ": not run: ") + why);
    });
  }

  int64_t timeout_ms(const json& args) const {
    int64_t limit = options.code_limits.wall_timeout_ms;
    auto it = args.find("timeout");
    if (it != args.end() && it->is_number_integer() && it->get<int64_t>() > 0)
      limit = std::min<int64_t>(limit, it->get<int64_t>() * 1000);
    return limit;
  }

  // `read_only`: the directory is mounted read-only over an empty /workspace
  // and only /tmp is writable (the judge's runs).
  Result<sandbox::SandboxResult> run(const FileView& view, std::vector<std::string> argv, std::string stdin_data,
                                     int64_t timeout, bool read_only = false) const {
    sandbox::SandboxRequest req;
    req.argv = std::move(argv);
    req.stdin_data = std::move(stdin_data);
    if (read_only)
      req.ro_binds.push_back({view.workspace(), "/workspace"});
    else
      req.workspace = view.workspace();
    req.limits = options.code_limits;
    req.limits.wall_timeout_ms = timeout;
    return sandbox::run_sandboxed(req);
  }

  ToolResult execute_code(const FileView& view, const json& args, bool read_only = false) const {
    const bool has_file = has_string(args, "file_path"), has_code = has_string(args, "code");
    if (has_file == has_code)
      return ToolResult::error("execute_code: give either file_path or code, not both or neither");
    // Programs run in code_run/, as the reference agents expect (a read-only
    // run from the top when there is none: it cannot be made).
    if (!read_only)
      if (auto made = view.make_dir("code_run"); !made)
        return ToolResult::error("execute_code: " + made.error().message);
    // Not -I: it leaves the script's directory off sys.path, and a project's
    // scripts import each other (`from utils import ...`). The sandbox's
    // environment is already clean; -E -s keep PYTHON* and user site out.
    const std::string launcher = read_only ? "cd code_run 2>/dev/null; exec python3 -E -s -B \"$@\""
                                           : "cd code_run && exec python3 -E -s -B \"$@\"";
    const int64_t timeout = timeout_ms(args);
    if (has_code)
      return run_result("execute_code",
                        run(view, {"sh", "-c", launcher, "sh", "-"}, str_arg(args, "code"), timeout, read_only),
                        timeout);
    const std::string path = str_arg(args, "file_path");
    auto opened = view.open_read(path);
    if (!opened) return ToolResult::error("execute_code: " + opened.error().message);
    struct stat st {};
    if (!opened->exists || fstat(opened->fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
      return ToolResult::error("execute_code: '" + opened->shown + "' is not a file of the task's workspace");
    return run_result("execute_code",
                      run(view, {"sh", "-c", launcher, "sh", "/workspace/" + opened->shown}, "", timeout, read_only),
                      timeout);
  }

  // A program's run, with the visible files it created or changed as
  // "files_changed" in its output (at most kMaxFilesChanged, then a count).
  static ToolResult with_files_changed(const FileView& view, const std::function<ToolResult()>& run_program) {
    constexpr size_t kMaxFilesChanged = 200;
    auto before = stamp_files(view.workspace());
    ToolResult r = run_program();
    auto after = stamp_files(view.workspace());
    if (!before || !after || !(r.output.is_object() || r.output.is_null())) return r;
    std::vector<std::string> changed = changed_files(*before, *after);
    if (changed.empty()) return r;
    if (r.output.is_null()) r.output = json::object();
    if (changed.size() > kMaxFilesChanged) {
      r.output["files_changed_more"] = changed.size() - kMaxFilesChanged;
      changed.resize(kMaxFilesChanged);
    }
    r.output["files_changed"] = std::move(changed);
    return r;
  }

  ToolResult check_files(const FileView& view, const json& args) const {
    auto it = args.find("paths");
    if (it == args.end() || !it->is_array()) return ToolResult::error("check_files: 'paths' must be a list");
    std::vector<std::string> missing;
    for (const auto& p : *it) {
      if (!p.is_string()) return ToolResult::error("check_files: every path must be a string");
      auto opened = view.open_read(p.get<std::string>());
      if (!opened)
        missing.push_back(p.get<std::string>() + " (" + opened.error().message + ")");
      else if (!opened->exists)
        missing.push_back(opened->shown);
    }
    if (missing.empty()) return ToolResult::success("every file exists");
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    // "list": which list named them, the final output's files (the default)
    // or an agent call's references.
    const bool references = args.value("list", "") == "references";
    const std::string named_in = references ? "this call's references" : "your final_output";
    const std::string key = references ? "references" : "files";
    return company::with_error_class(
        ToolResult::error("these files named in " + named_in + " do not exist in the task's workspace: " + list +
                          "; write them first or remove them from '" + key + "'"),
        company::ToolErrorClass::invalid_input);
  }

  ToolResult on_files(const std::string& name, const FileView& view, const json& args) const {
    const FileLimits& lim = options.file_limits;
    if (name == "file_read") return renamed(read_file(view, str_arg(args, "file_path"), lim));
    if (name == "file_write") {
      if (!has_string(args, "content")) return ToolResult::error("file_write: 'content' is required (the file's text)");
      if (!has_string(args, "file_path")) return ToolResult::error("file_write: 'file_path' is required");
      return renamed(write_file(view, str_arg(args, "file_path"), str_arg(args, "content"), lim));
    }
    if (name == "dir_list") {
      const std::string path = has_string(args, "path") ? str_arg(args, "path") : ".";
      return renamed(list_files(view, path, lim));
    }
    if (name == "dir_create") {
      auto made = view.make_dir(str_arg(args, "dir_path"));
      if (!made) return ToolResult::error("dir_create: " + made.error().message);
      return ToolResult::success("dir_create: '" + *made + "' exists");
    }
    if (name == "file_move") {
      Status moved = view.move(str_arg(args, "source"), str_arg(args, "destination"));
      if (!moved) return ToolResult::error("file_move: " + moved.error().message);
      return ToolResult::success("file_move: moved '" + str_arg(args, "source") + "' to '" +
                                 str_arg(args, "destination") + "'");
    }
    if (name == "execute_code") return with_files_changed(view, [&] { return execute_code(view, args); });
    if (name == kJudgeExecute) return execute_code(view, args, true);
    if (name == "execute_shell")
      return with_files_changed(view, [&] {
        const int64_t timeout = timeout_ms(args);
        return run_result("execute_shell", run(view, {"sh", "-c", str_arg(args, "command")}, "", timeout), timeout);
      });
    if (name == kCheckFiles) return check_files(view, args);
    return ToolResult::error("no level-0 tool is called '" + name + "'");
  }
};

PyramidTools::PyramidTools(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PyramidTools::~PyramidTools() = default;

Result<std::shared_ptr<PyramidTools>> PyramidTools::create(PyramidToolsOptions options) {
  auto specs = company::load_tool_specs(data_file("data/tools/pyramid_tools.json"));
  if (!specs) return specs.error();
  if (options.workspace_root.empty()) return Error{"config", "tools: the workspace root is empty"};
  const std::string engine = options.search_engine;
  if (!options.search)
    if (Status s = check_search_config(engine, options.search_url); !s) return s.error();
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->specs = std::move(specs).value();
  if (!impl->options.search && engine == "searxng") {
    impl->http = std::make_unique<http::HttpClient>();
    impl->options.search = make_searxng_engine(*impl->http, impl->options.search_url, impl->options.search_timeout_ms);
  }
  return std::shared_ptr<PyramidTools>(new PyramidTools(std::move(impl)));
}

std::vector<llm::ToolSpec> PyramidTools::specs() const { return impl_->specs; }

bool PyramidTools::repeatable(const std::string& name) const {
  // An open makes its branch afresh; a close with a record finds its commit
  // when run again; a drop of what is gone already is done.
  return name == kCheckFiles || name == kBranchOpen || name == kBranchClose || name == kBranchDrop ||
         company::repeatable_tool(name);
}

Result<std::string> PyramidTools::task_directory(const std::string& session_id, const std::string& task_id) const {
  auto dir = impl_->task_dir(session_id, task_id);
  if (!dir) return dir;
  auto view = FileView::open(*dir);
  if (!view) return view.error();
  return view->workspace();
}

void PyramidTools::call(const std::string& name, const json& args, const company::ToolCallContext& ctx, Done done) {
  if (!args.is_object()) return done(ToolResult::error(name + ": the arguments must be a JSON object"));
  // A task_id naming another task is refused, never followed.
  if (auto it = args.find("task_id"); it != args.end() && (!it->is_string() || it->get<std::string>() != ctx.task_id))
    return done(
        ToolResult::error(name + ": task_id " + it->dump() + " is not this task's; pass \"" + ctx.task_id + "\""));
  if (name == "pip_install")
    return done(ToolResult::error(
        "pip_install: packages cannot be installed: the sandbox has no network access. Use the Python packages "
        "already installed (the standard library and what the host provides)."));
  if (name == "web_search") {
    if (!impl_->options.search)
      return done(
          ToolResult::error("web_search: no web search engine is configured. Set tools.web_search.engine (searxng) and "
                            "tools.web_search.url in the kaisha config to enable it."));
    impl_->options.search->search(str_arg(args, "query"), 10, [done](Result<std::vector<SearchHit>> r) {
      if (!r) return done(ToolResult::error("web_search: " + r.error().message));
      json hits = hits_to_json(*r);
      done(ToolResult::success("web_search: " + std::to_string(hits.size()) + " results", hits));
    });
    return;
  }
  const std::string session = ctx.session_id, task = ctx.task_id, branch = ctx.branch;
  if (name == kBranchOpen || name == kBranchClose || name == kBranchDrop)
    return impl_->on_pool(name, std::move(done),
                          [this, name, args, session, task] { return impl_->on_branch(name, session, task, args); });
  impl_->on_pool(name, std::move(done), [this, name, args, session, task, branch]() {
    auto dir = impl_->work_dir(session, task, branch);
    if (!dir) return ToolResult::error(name + ": " + dir.error().message);
    auto view = FileView::open(*dir);
    if (!view) return ToolResult::error(name + ": " + view.error().message);
    return impl_->on_files(name, *view, task_relative_arguments(args, task));
  });
}

}  // namespace kaisha::tools
