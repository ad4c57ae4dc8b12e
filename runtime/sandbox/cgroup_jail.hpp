// CgroupJail: a fresh cgroup (v2, or v1 memory + pids) for one sandboxed run,
// so that memory and the process count are limited by the kernel for the
// whole process tree. The child joins it before exec (procs_files); the
// destructor kills whatever is left in it and removes it.
//
// Usable only where this process may create cgroups below its own: a v2
// tree whose memory and pids controllers are delegated to us, or the v1
// memory and pids hierarchies writable (typically as root). Otherwise
// create() says why and the caller falls back to the supervisor.
//
// A kaisha that was killed leaves its jails behind; the first create() of a
// process removes the jails of processes that no longer exist (their names
// carry the creating pid), after killing anything still in them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::sandbox {

class CgroupJail {
 public:
  // `max_tasks` is the pids limit of the whole group; `memory_bytes` its
  // memory limit (swap included where the kernel accounts it).
  static Result<std::unique_ptr<CgroupJail>> create(int64_t memory_bytes, int64_t max_tasks);
  ~CgroupJail();
  // Removes the jails below `parent` whose creating process is gone; returns
  // how many. create() does this once per process for the parents it uses.
  static int remove_stale(const std::string& parent);
  CgroupJail(const CgroupJail&) = delete;
  CgroupJail& operator=(const CgroupJail&) = delete;

  // "cgroup v2" or "cgroup v1".
  const std::string& mechanism() const { return mechanism_; }
  // The cgroup.procs files a process writes "0" to, to join.
  const std::vector<std::string>& procs_files() const { return procs_files_; }
  // Counters since creation: OOM kills, and forks refused at the pids limit.
  int64_t oom_kills() const;
  int64_t refused_forks() const;
  // SIGKILLs every member (cgroup.kill on v2, each listed pid on v1).
  void kill_all() const;

 private:
  CgroupJail() = default;
  std::string mechanism_;
  std::string memory_dir_, pids_dir_;  // the same directory on v2
  std::vector<std::string> procs_files_;
};

}  // namespace kaisha::sandbox
