#include "runtime/company/guarded_tool_source.hpp"

#include "runtime/company/tool_error_class.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::company {

GuardedToolSource::GuardedToolSource(std::shared_ptr<ToolSource> inner, std::shared_ptr<ToolHealth> health,
                                     BreakerFn on_breaker)
    : inner_(std::move(inner)), health_(std::move(health)), on_breaker_(std::move(on_breaker)) {}

void GuardedToolSource::call(const std::string& name, const json& args, const ToolCallContext& ctx,
                             std::function<void(ToolResult)> done) {
  const ToolAdmission a = health_->admit(name, steady_ms());
  if (a.from && on_breaker_) on_breaker_(name, BreakerChange{*a.from, a.state, a.consecutive_failures, 0}, ctx);
  if (!a.allowed) return done(breaker_refusal(name, a));
  const int64_t started = steady_ms();
  const int64_t timeout = inner_->metadata(name).timeout_ms;
  inner_->call(
      name, args, ctx,
      [health = health_, on_breaker = on_breaker_, name, ctx, started, timeout, done = std::move(done)](ToolResult r) {
        const auto kind = classify_tool_error(r);
        if (kind == ToolErrorClass::invalid_input) {
          health->not_run(name);
        } else {
          const int64_t now = steady_ms();
          auto change = health->record(name, kind.has_value(), now - started, now, timeout);
          if (change && on_breaker) on_breaker(name, *change, ctx);
        }
        done(std::move(r));
      });
}

}  // namespace kaisha::company
