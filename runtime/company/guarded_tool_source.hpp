// GuardedToolSource: a ToolSource behind the company's circuit breakers
// (tool_health.hpp), for the tools a strategy's driver runs with RunTool
// (the pyramid's level-0 tools, HALO's and HiVA's), which do not go through
// an actor's SourcedTools.
//
// A call of a tool whose breaker is open is answered at once, without
// running it, with breaker_refusal(); any other runs on the wrapped source,
// and its end is recorded in the ToolHealth shared with the CEO and the
// employees (a failure of class invalid_input is the caller's and is not).
// `on_breaker` hears each change of a breaker's state, with the call's
// context; it may be called from any thread, as `done` is. Everything else
// is the wrapped source's.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/company/tool_health.hpp"
#include "runtime/company/tool_source.hpp"

namespace kaisha::company {

class GuardedToolSource : public ToolSource {
 public:
  using BreakerFn =
      std::function<void(const std::string& tool, const BreakerChange& change, const ToolCallContext& ctx)>;

  GuardedToolSource(std::shared_ptr<ToolSource> inner, std::shared_ptr<ToolHealth> health, BreakerFn on_breaker);

  std::string origin() const override { return inner_->origin(); }
  std::vector<llm::ToolSpec> specs() const override { return inner_->specs(); }
  void call(const std::string& name, const json& args, const ToolCallContext& ctx,
            std::function<void(ToolResult)> done) override;
  ToolCost cost(const std::string& name) const override { return inner_->cost(name); }
  bool repeatable(const std::string& name) const override { return inner_->repeatable(name); }
  ToolMetadata metadata(const std::string& name) const override { return inner_->metadata(name); }
  void stop() override { inner_->stop(); }

 private:
  std::shared_ptr<ToolSource> inner_;
  std::shared_ptr<ToolHealth> health_;
  BreakerFn on_breaker_;
};

}  // namespace kaisha::company
