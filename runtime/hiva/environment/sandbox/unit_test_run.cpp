#include "runtime/hiva/environment/sandbox/unit_test_run.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "runtime/hiva/environment/program_extract.hpp"
#include "runtime/hiva/environment/test_program.hpp"
#include "runtime/hiva/environment/test_run_reading.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::hiva {

namespace {

namespace fs = std::filesystem;

// A private directory for one run, removed with everything in it when the
// run is over.
class Workspace {
 public:
  static Result<Workspace> make(const std::string& scratch_dir) {
    std::error_code ec;
    std::string base = scratch_dir.empty() ? fs::temp_directory_path(ec).string() : scratch_dir;
    if (ec) return Error{"io", "run_unit_tests: no temporary directory: " + ec.message()};
    std::string pattern = base + "/kaisha-unit-tests-XXXXXX";
    if (!mkdtemp(pattern.data())) return Error{"io", "run_unit_tests: cannot make a workspace under " + base};
    chmod(pattern.c_str(), 0755);  // the sandbox's uid must reach it
    return Workspace(pattern);
  }
  Workspace(Workspace&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace& operator=(Workspace&&) = delete;
  ~Workspace() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit Workspace(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace

Result<EnvironmentFeedback> run_unit_tests(const std::string& program_source, const sandbox::SandboxLimits& limits,
                                           const std::string& scratch_dir) {
  auto workspace = Workspace::make(scratch_dir);
  if (!workspace) return workspace.error();
  sandbox::SandboxRequest request;
  // -I: no PYTHON* variables, no user site; -B: no .pyc files; "-": the
  // program comes on stdin (an argument is capped at 128 KiB).
  request.argv = {"python3", "-I", "-B", "-"};
  request.stdin_data = program_source;
  request.workspace = workspace->path();
  request.limits = limits;
  auto ran = sandbox::run_sandboxed(request);
  if (!ran) return ran.error();
  const sandbox::SandboxResult& r = ran.value();
  TestRun run;
  run.exit_code = r.exit_code;
  run.signal = r.signal;
  run.stdout_data = r.stdout_data;
  run.stderr_data = r.stderr_data;
  run.timed_out = r.timed_out;
  run.wall_timeout_ms = limits.wall_timeout_ms;
  if (r.limit) run.stopped_by = r.limit->message;
  return read_test_run(run);
}

Result<EnvironmentFeedback> run_item_tests(const suite::SuiteItem& item, const std::string& answer,
                                           const sandbox::SandboxLimits& limits, const std::string& scratch_dir) {
  std::string program = build_test_program(extract_program(answer), item.tests, item.entry_point);
  return run_unit_tests(program, limits, scratch_dir);
}

}  // namespace kaisha::hiva
