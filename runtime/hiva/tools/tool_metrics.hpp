// ToolMetrics: how each version of an agent tool has performed (hiva.md §9:
// "a central registry tracks versions and performance metrics"), keyed by the
// hash of the tool's source, so a rewritten tool starts its own record.
//
// Per version: calls (hiva.agent_tool calls), runs (sandboxed attempts,
// retries included), failures (attempts that failed, of any kind), timeouts
// (attempts killed by the wall clock) and total_ms (the attempts' wall time).
// Thread-safe. Bounded: beyond `max_versions` the version used least
// recently is forgotten, so a long evolution cannot grow it without end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::hiva {

struct ToolVersionMetrics {
  int64_t calls = 0;
  int64_t runs = 0;
  int64_t failures = 0;
  int64_t timeouts = 0;
  int64_t total_ms = 0;
};

class ToolMetrics {
 public:
  explicit ToolMetrics(size_t max_versions = 4096);

  // The key of a tool's source: 16 hex digits, stable across builds.
  static std::string code_hash(const std::string& code);

  // A call of the tool with this hash started.
  void record_call(const std::string& hash);
  // One attempt ended: `failed` and `timed_out` say how, `ms` how long it took.
  void record_run(const std::string& hash, bool failed, bool timed_out, int64_t ms);

  // The counters of one version (zeros when unknown).
  ToolVersionMetrics of(const std::string& hash) const;
  // {"<hash>": {"calls", "runs", "failures", "timeouts", "total_ms"}, ...}
  json to_json() const;

 private:
  struct Entry {
    ToolVersionMetrics m;
    uint64_t last_use = 0;
  };
  Entry& touch(const std::string& hash);  // mu_ held

  const size_t max_versions_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  uint64_t clock_ = 0;  // a use counter, not time
};

}  // namespace kaisha::hiva
