#include "runtime/sandbox/tree_limits.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "runtime/sandbox/process_tree.hpp"

namespace kaisha::sandbox {

namespace {

using Clock = std::chrono::steady_clock;

std::string size_text(int64_t bytes) {
  if (bytes % (1ll << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

std::string how_text(const std::string& mechanism) {
  return mechanism == "supervisor" ? "enforced by the supervisor sampling the process tree"
                                   : "enforced by " + mechanism;
}

}  // namespace

Result<std::unique_ptr<TreeLimits>> TreeLimits::start(const SandboxLimits& limits, const std::string& workspace,
                                                      LimitEnforcement how) {
  std::unique_ptr<TreeLimits> t(new TreeLimits());
  t->limits_ = limits;
  t->workspace_ = workspace;
  if (how != LimitEnforcement::supervisor) {
    // The group holds bwrap itself besides the sandbox's processes.
    auto jail = CgroupJail::create(limits.memory_bytes, limits.max_processes + 1);
    if (jail) {
      t->jail_ = std::move(jail).value();
      t->mechanism_ = t->jail_->mechanism();
    } else if (how == LimitEnforcement::cgroup) {
      return Error{"sandbox_unavailable",
                   "run_sandboxed: cgroups were required but are not usable here: " + jail.error().message};
    } else {
      t->why_no_cgroup_ = jail.error().message;
    }
  }
  if (!t->jail_) t->mechanism_ = "supervisor";
  if (!workspace.empty()) {
    auto used = disk_usage(workspace);
    if (!used)
      return Error{"sandbox_setup", "run_sandboxed: cannot measure the disk use of workspace " + workspace + ": " +
                                        used.error().message};
    t->disk_at_start_ = t->disk_now_ = *used;
    struct stat st {};
    if (stat(workspace.c_str(), &st) == 0) t->workspace_dev_ = st.st_dev;
  }
  return t;
}

std::vector<std::string> TreeLimits::join_files() const {
  return jail_ ? jail_->procs_files() : std::vector<std::string>{};
}

bool TreeLimits::check_disk() {
  if (workspace_.empty() || hit_) return false;
  const auto began = Clock::now();
  auto measured = disk_usage(workspace_);
  // A big workspace takes a while to walk: keep the walks to a fifth of the time.
  next_disk_check_ =
      Clock::now() + std::max<Clock::duration>(std::chrono::milliseconds(20), 4 * (Clock::now() - began));
  if (!measured) {
    // A tree nested too deep to walk cannot be held to its limit: stop it.
    if (measured.error().code != "too_deep") return false;
    hit_ = LimitHit{"disk", limits_.disk_bytes,
                    "disk limit exceeded: the workspace's size cannot be measured (" + measured.error().message +
                        "); the run was stopped"};
    return true;
  }
  // Files deleted while still open count too: unlinking what it writes must
  // not take a run past its limit.
  const int64_t used = *measured + (tree_root_ > 0 ? deleted_open_bytes(tree_root_, workspace_dev_) : 0);
  disk_now_ = used;
  if (used <= limits_.disk_bytes || used <= disk_at_start_) return false;
  hit_ = LimitHit{"disk", limits_.disk_bytes,
                  "disk limit exceeded: the workspace grew past its " + size_text(limits_.disk_bytes) + " limit (" +
                      size_text(used) +
                      " in use when measured; enforced by sampling the workspace's size); "
                      "the run was stopped"};
  return true;
}

bool TreeLimits::over(pid_t bwrap_pid) {
  if (hit_) return true;
  if (bwrap_pid > 0) tree_root_ = bwrap_pid;
  const std::string how = how_text(mechanism_);
  if (jail_) {
    if (jail_->oom_kills() > 0)
      hit_ = LimitHit{"memory", limits_.memory_bytes,
                      "memory limit exceeded: the run's processes together needed more than " +
                          size_text(limits_.memory_bytes) + " (" + how + "); the run was stopped"};
    else if (jail_->refused_forks() > 0)
      hit_ =
          LimitHit{"processes", limits_.max_processes,
                   "process limit exceeded: the run tried to have more than " + std::to_string(limits_.max_processes) +
                       " processes at once (" + how + "); the run was stopped"};
  } else if (bwrap_pid > 0) {
    TreeUsage u = sample_tree(bwrap_pid);
    if (u.rss_bytes > limits_.memory_bytes)
      hit_ = LimitHit{"memory", limits_.memory_bytes,
                      "memory limit exceeded: the run's processes together used " + size_text(u.rss_bytes) +
                          ", more than " + size_text(limits_.memory_bytes) + " (" + how + "); the run was stopped"};
    else if (u.processes > limits_.max_processes)
      hit_ = LimitHit{"processes", limits_.max_processes,
                      "process limit exceeded: the run had more than " + std::to_string(limits_.max_processes) +
                          " processes at once (" + how + "); the run was stopped"};
  }
  if (hit_) return true;
  if (Clock::now() >= next_disk_check_) return check_disk();
  return false;
}

std::optional<LimitHit> TreeLimits::hit() {
  // What happened after the last sample: a kill or refusal the kernel did
  // while the run was ending, a file written just before it ended.
  if (!hit_) over(-1);
  if (!hit_) check_disk();
  if (jail_) jail_->kill_all();
  return hit_;
}

}  // namespace kaisha::sandbox
