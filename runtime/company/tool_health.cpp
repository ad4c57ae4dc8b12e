#include "runtime/company/tool_health.hpp"

#include <algorithm>

#include "runtime/company/tool_error_class.hpp"

namespace kaisha::company {

std::string_view breaker_state_name(BreakerState s) {
  switch (s) {
    case BreakerState::closed:
      return "closed";
    case BreakerState::open:
      return "open";
    case BreakerState::half_open:
      return "half_open";
  }
  return "closed";
}

json breaker_note(const std::string& tool, const BreakerChange& c) {
  json j{{"breaker", tool},
         {"from", std::string(breaker_state_name(c.from))},
         {"to", std::string(breaker_state_name(c.to))},
         {"consecutive_failures", c.consecutive_failures}};
  if (c.to == BreakerState::open) j["cooldown_ms"] = c.cooldown_ms;
  return j;
}

std::string breaker_text(const std::string& tool, const BreakerChange& c) {
  const std::string t = "Tool `" + tool + "` ";
  switch (c.to) {
    case BreakerState::open:
      return t +
             (c.from == BreakerState::half_open
                  ? "failed its trial call"
                  : "failed " + std::to_string(c.consecutive_failures) + " times in a row") +
             ": paused for " + std::to_string((c.cooldown_ms + 999) / 1000) + " s (circuit breaker open)";
    case BreakerState::half_open:
      return t + "is tried again after its pause (circuit breaker half-open)";
    case BreakerState::closed:
      return t + "works again (circuit breaker closed)";
  }
  return t;
}

ToolResult breaker_refusal(const std::string& tool, const ToolAdmission& a) {
  std::string why;
  if (a.state == BreakerState::open)
    why = "it failed " + std::to_string(a.consecutive_failures) +
          " times in a row and is paused (circuit breaker open); it will be tried again in " +
          std::to_string((a.retry_in_ms + 999) / 1000) + " s. Use another tool or answer without it.";
  else
    why = "it is being tried again after failing, by another call; wait for that call or use another tool.";
  return with_error_class(
      ToolResult::error("Tool `" + tool + "` was not run: " + why,
                        json{{"breaker", std::string(breaker_state_name(a.state))}, {"retry_in_ms", a.retry_in_ms}}),
      ToolErrorClass::permanent);
}

double tool_health_score(int64_t calls, int64_t failures, double mean_latency_ms, int64_t timeout_ms) {
  if (calls <= 0) return 1;
  const double success = static_cast<double>(calls - failures) / static_cast<double>(calls);
  const double slowness =
      timeout_ms > 0 ? std::clamp(mean_latency_ms / static_cast<double>(timeout_ms), 0.0, 1.0) : 0.0;
  return success * (1 - slowness);
}

json ToolHealthView::to_json() const {
  return json{{"calls", calls},
              {"failures", failures},
              {"consecutive_failures", consecutive_failures},
              {"mean_latency_ms", mean_latency_ms},
              {"health", health},
              {"breaker", std::string(breaker_state_name(state))}};
}

ToolHealth::ToolHealth(ToolBreakerSettings settings) : settings_(settings) {}

ToolHealth::Entry& ToolHealth::touch(const std::string& tool) {
  auto it = tools_.find(tool);
  if (it == tools_.end()) {
    if (settings_.max_tools > 0 && tools_.size() >= settings_.max_tools) {
      auto oldest = std::min_element(tools_.begin(), tools_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      });
      tools_.erase(oldest);
    }
    it = tools_.emplace(tool, Entry{}).first;
  }
  it->second.last_use = ++uses_;
  return it->second;
}

ToolAdmission ToolHealth::admit(const std::string& tool, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = touch(tool);
  ToolAdmission a;
  a.consecutive_failures = e.consecutive;
  if (e.state == BreakerState::open) {
    if (now_ms < e.open_until_ms) {
      a.allowed = false;
      a.state = BreakerState::open;
      a.retry_in_ms = e.open_until_ms - now_ms;
      return a;
    }
    e.state = BreakerState::half_open;
    e.probes = 0;
    a.from = BreakerState::open;
  }
  a.state = e.state;
  if (e.state == BreakerState::half_open) {
    if (e.probes >= std::max(1, settings_.half_open_calls)) {
      a.allowed = false;
      a.retry_in_ms = 0;  // a probe is under way
      return a;
    }
    ++e.probes;
  }
  return a;
}

std::optional<BreakerChange> ToolHealth::record(const std::string& tool, bool failed, int64_t latency_ms,
                                                int64_t now_ms, int64_t timeout_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = touch(tool);
  ++e.calls;
  e.latency_sum_ms += static_cast<double>(std::max<int64_t>(0, latency_ms));
  if (timeout_ms > 0) e.timeout_ms = timeout_ms;
  const BreakerState before = e.state;
  if (before == BreakerState::half_open && e.probes > 0) --e.probes;
  if (!failed) {
    e.consecutive = 0;
    if (before == BreakerState::closed) return std::nullopt;
    if (before == BreakerState::open) return std::nullopt;  // a call admitted before it opened
    e.state = BreakerState::closed;
    return BreakerChange{before, BreakerState::closed, 0, 0};
  }
  ++e.failures;
  ++e.consecutive;
  const bool trips =
      before == BreakerState::half_open ||
      (before == BreakerState::closed && settings_.failures_to_open > 0 && e.consecutive >= settings_.failures_to_open);
  if (!trips) return std::nullopt;
  e.state = BreakerState::open;
  e.open_until_ms = now_ms + std::max<int64_t>(0, settings_.cooldown_ms);
  e.probes = 0;
  return BreakerChange{before, BreakerState::open, e.consecutive, settings_.cooldown_ms};
}

void ToolHealth::not_run(const std::string& tool) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tools_.find(tool);
  if (it != tools_.end() && it->second.state == BreakerState::half_open && it->second.probes > 0) --it->second.probes;
}

ToolHealthView ToolHealth::view_of(const Entry& e) const {
  ToolHealthView v;
  v.calls = e.calls;
  v.failures = e.failures;
  v.consecutive_failures = e.consecutive;
  v.state = e.state;
  if (e.calls > 0) v.mean_latency_ms = e.latency_sum_ms / static_cast<double>(e.calls);
  v.health = tool_health_score(e.calls, e.failures, v.mean_latency_ms, e.timeout_ms);
  return v;
}

ToolHealthView ToolHealth::view(const std::string& tool) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tools_.find(tool);
  return it == tools_.end() ? ToolHealthView{} : view_of(it->second);
}

json ToolHealth::to_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  json out = json::object();
  for (const auto& [name, e] : tools_) out[name] = view_of(e).to_json();
  return out;
}

}  // namespace kaisha::company
