#include "runtime/hiva/tools/tool_metrics.hpp"

#include <algorithm>

#include "runtime/tools/tool_index.hpp"

namespace kaisha::hiva {

ToolMetrics::ToolMetrics(size_t max_versions) : max_versions_(std::max<size_t>(1, max_versions)) {}

std::string ToolMetrics::code_hash(const std::string& code) { return tools::content_hash(code); }

ToolMetrics::Entry& ToolMetrics::touch(const std::string& hash) {
  auto it = entries_.find(hash);
  if (it == entries_.end()) {
    if (entries_.size() >= max_versions_) {
      auto oldest = std::min_element(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      });
      entries_.erase(oldest);
    }
    it = entries_.emplace(hash, Entry{}).first;
  }
  it->second.last_use = ++clock_;
  return it->second;
}

void ToolMetrics::record_call(const std::string& hash) {
  std::lock_guard<std::mutex> lock(mu_);
  ++touch(hash).m.calls;
}

void ToolMetrics::record_run(const std::string& hash, bool failed, bool timed_out, int64_t ms) {
  std::lock_guard<std::mutex> lock(mu_);
  ToolVersionMetrics& m = touch(hash).m;
  ++m.runs;
  if (failed) ++m.failures;
  if (timed_out) ++m.timeouts;
  m.total_ms += std::max<int64_t>(0, ms);
}

ToolVersionMetrics ToolMetrics::of(const std::string& hash) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(hash);
  return it == entries_.end() ? ToolVersionMetrics{} : it->second.m;
}

json ToolMetrics::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  json out = json::object();
  for (const auto& [hash, e] : entries_)
    out[hash] = {{"calls", e.m.calls},
                 {"runs", e.m.runs},
                 {"failures", e.m.failures},
                 {"timeouts", e.m.timeouts},
                 {"total_ms", e.m.total_ms}};
  return out;
}

}  // namespace kaisha::hiva
