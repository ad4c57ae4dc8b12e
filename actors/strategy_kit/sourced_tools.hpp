// SourcedTools: the ToolSource side of one actor's ToolRegistry, shared by
// the CEO and employees with tools. sync() brings the registry up to date with
// what every source offers now (a tool created, deleted or newly listed by
// an MCP server is seen on the next model call), keeping only the tools
// `admit` accepts; the handlers it registers
//   - reserve the tool's declared cost on the ledger first (tools.costs
//     overrides what the source declares); a refusal is the tool's result,
//     "Tool `X` was not run: Do not have enough ... budget ...", and the
//     source is not called;
//   - call the source without blocking: its `done` may come from any
//     thread and is marshalled back to the actor as
//     (tool_done_atom, id, ToolResult), which the actor hands to on_done();
//   - settle the reservation when the result is back;
//   - charge a tool ToolCreator made with its declared create costs (a
//     refusal deletes it again and is ToolCreator's answer), and refund the
//     resource part when ToolDeletor removes one;
//   - with failure handling on (handle_failures), refuse at once a call of a
//     tool whose circuit breaker is open — "Tool `X` was not run: ..." with
//     output {"breaker": "open", "retry_in_ms"} — and record every call that
//     ran in the company's ToolHealth, telling `on_breaker` when a breaker
//     changes state.
// Each registered tool carries its source's metadata (Tool::meta).
// Owned by the actor's state; every method runs on the actor's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_health.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/config/config.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::actors {

class SourcedTools {
 public:
  // Where a call comes from: who calls, for the source (workspace) and the
  // ledger entries, and whom to tell the USD the call was charged (may be empty).
  struct CallSite {
    company::ToolCallContext ctx;
    std::function<void(double usd)> charged;
  };
  // Asked when a tool handler starts (inside ToolRegistry::invoke).
  using SiteFn = std::function<CallSite()>;
  // Whether the actor may have tool `name` offered by `origin`.
  using AdmitFn = std::function<bool(const std::string& name, const std::string& origin)>;

  // Failure handling (tools.failures): the health and breakers shared by the
  // company's actors (null: none), tools the config says are safe to repeat
  // (tools.repeatable), and whom to tell of a breaker's change (may be empty).
  using BreakerFn = std::function<void(const std::string& tool, const company::BreakerChange& change,
                                       const company::ToolCallContext& ctx)>;
  struct FailureHandling {
    std::shared_ptr<company::ToolHealth> health;
    std::set<std::string> repeatable;
    BreakerFn on_breaker;
  };
  // The usual on_breaker: the change journaled as a note of `agent`'s (""
  // = the call's: ctx.agent) ({"breaker": tool, "from", "to", ...}) and
  // reported as a `breaker` event.
  static BreakerFn report_breakers(caf::actor journal, std::shared_ptr<company::ProgressSink> progress,
                                   std::string agent);

  SourcedTools(std::vector<std::shared_ptr<company::ToolSource>> sources, caf::actor ledger,
               std::map<std::string, config::ToolCostConfig> cost_overrides, SiteFn site, AdmitFn admit = nullptr);

  // Adds, updates and removes the sources' tools in `registry`. A source's
  // tool never replaces a tool of another source with the same name.
  void sync(caf::event_based_actor* self, company::ToolRegistry& registry);

  // A source's answer to call `id` (from the tool_done_atom message).
  void on_done(uint64_t id, company::ToolResult result);

  void handle_failures(FailureHandling f) { failures_ = std::move(f); }

  bool empty() const { return sources_.empty(); }
  // Whether a call of `name` may run again on a resume, or after a
  // transient failure: tools.repeatable's or its source's say
  // (ToolSource::repeatable), as of the last sync.
  bool repeatable(const std::string& name) const;

 private:
  struct Pending;
  company::ToolCost cost_of(const company::ToolSource& p, const std::string& name) const;
  static economy::ModelCost create_price(const std::string& tool, const company::ToolCost& cost);
  void charge_creation(std::shared_ptr<Pending> p, company::ToolResult result);
  void start(caf::event_based_actor* self, const std::shared_ptr<company::ToolSource>& p, const std::string& name,
             const json& args, const company::ToolCost& cost, company::ToolDone done, int64_t timeout_ms);

  std::vector<std::shared_ptr<company::ToolSource>> sources_;
  caf::actor ledger_;
  std::map<std::string, config::ToolCostConfig> overrides_;
  SiteFn site_;
  AdmitFn admit_;
  caf::event_based_actor* self_ = nullptr;
  uint64_t next_ = 0;
  std::map<uint64_t, std::shared_ptr<Pending>> pending_;
  std::map<std::string, std::set<std::string>> offered_;  // by origin, at the last sync
  FailureHandling failures_;
};

}  // namespace kaisha::actors
