#include "actors/strategy_kit/sourced_tools.hpp"

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/company/tool_error_class.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/tools/user_tools.hpp"

namespace kaisha::actors {

using company::ToolDone;
using company::ToolResult;

struct SourcedTools::Pending {
  ToolDone done;
  CallSite site;
  bool held = false;  // a ledger reservation to settle
  economy::AskReservation reservation;
  double usd = 0;
  // ToolCreator / ToolDeletor: the source, and the tool made or removed.
  std::weak_ptr<company::ToolSource> source;
  std::string made, removed;
  company::ToolCost removed_cost;  // looked up before the deletion
  // Recorded in the tool's health when it ends (a call that ran).
  std::string tool;
  int64_t started_ms = 0;  // steady_ms()
  int64_t timeout_ms = 0;
};

namespace {

// ToolCreator's and ToolDeletor's failures are the code or the path they
// were given: they have no breaker.
bool has_breaker(const std::string& name) { return name != "ToolCreator" && name != "ToolDeletor"; }

}  // namespace

SourcedTools::SourcedTools(std::vector<std::shared_ptr<company::ToolSource>> sources, caf::actor ledger,
                           std::map<std::string, config::ToolCostConfig> cost_overrides, SiteFn site, AdmitFn admit)
    : sources_(std::move(sources)),
      ledger_(std::move(ledger)),
      overrides_(std::move(cost_overrides)),
      site_(std::move(site)),
      admit_(std::move(admit)) {}

company::ToolCost SourcedTools::cost_of(const company::ToolSource& p, const std::string& name) const {
  company::ToolCost c = p.cost(name);
  if (auto it = overrides_.find(name); it != overrides_.end()) {
    c.invoke_resource_cost = it->second.invoke_resource_cost;
    c.invoke_expense_cost = it->second.invoke_expense_cost;
  }
  return c;
}

void SourcedTools::sync(caf::event_based_actor* self, company::ToolRegistry& registry) {
  self_ = self;
  for (const auto& source : sources_) {
    const std::string origin = source->origin();
    std::set<std::string> now;
    for (llm::ToolSpec& spec : source->specs()) {
      if (admit_ && !admit_(spec.name, origin)) continue;
      const company::Tool* existing = registry.find(spec.name);
      if (existing && existing->origin != origin) continue;  // name taken by another source
      now.insert(spec.name);
      const company::ToolCost cost = cost_of(*source, spec.name);
      company::ToolMetadata meta = source->metadata(spec.name);
      if (existing && existing->spec.description == spec.description && existing->spec.parameters == spec.parameters &&
          existing->cost.invoke_expense_cost == cost.invoke_expense_cost &&
          existing->cost.invoke_resource_cost == cost.invoke_resource_cost && existing->meta == meta)
        continue;
      std::weak_ptr<company::ToolSource> weak = source;
      const std::string name = spec.name;
      const int64_t timeout_ms = meta.timeout_ms;
      company::ToolHandler handler = [this, weak, name, cost, timeout_ms](const json& args, ToolDone done) {
        auto p = weak.lock();
        if (!p) return done(ToolResult::error("Tool `" + name + "` is no longer available."));
        if (failures_.health && has_breaker(name)) {
          const company::ToolAdmission a = failures_.health->admit(name, steady_ms());
          if (a.from && failures_.on_breaker)
            failures_.on_breaker(name, company::BreakerChange{*a.from, a.state, a.consecutive_failures, 0},
                                 site_().ctx);
          if (!a.allowed) return done(company::breaker_refusal(name, a));
        }
        start(self_, p, name, args, cost, std::move(done), timeout_ms);
      };
      registry.add({std::move(spec), std::move(handler), origin, cost, std::move(meta)});
    }
    for (const std::string& gone : offered_[origin])
      if (!now.count(gone)) registry.remove(gone);
    offered_[origin] = std::move(now);
  }
}

SourcedTools::BreakerFn SourcedTools::report_breakers(caf::actor journal,
                                                      std::shared_ptr<company::ProgressSink> progress,
                                                      std::string agent) {
  return [journal = std::move(journal), progress = std::move(progress), agent = std::move(agent)](
             const std::string& tool, const company::BreakerChange& c, const company::ToolCallContext& ctx) {
    const std::string& who = agent.empty() ? ctx.agent : agent;
    json note = company::breaker_note(tool, c);
    journal_step(journal, {ctx.session_id, ctx.task_id, who, msg::EventKind::note, note});
    if (!progress || !progress->listening()) return;
    msg::ProgressEvent e;
    e.session_id = ctx.session_id;
    e.task_id = ctx.task_id;
    e.agent = who;
    e.kind = msg::EventKind::breaker;
    e.text = company::breaker_text(tool, c);
    note["tool"] = tool;
    note["agent"] = who;
    e.data = std::move(note);
    e.at_ms = wall_ms();
    progress->emit(e);
  };
}

bool SourcedTools::repeatable(const std::string& name) const {
  if (failures_.repeatable.count(name)) return true;
  for (const auto& source : sources_) {
    auto it = offered_.find(source->origin());
    if (it != offered_.end() && it->second.count(name)) return source->repeatable(name);
  }
  return company::repeatable_tool(name);
}

void SourcedTools::start(caf::event_based_actor* self, const std::shared_ptr<company::ToolSource>& p,
                         const std::string& name, const json& args, const company::ToolCost& cost, ToolDone done,
                         int64_t timeout_ms) {
  const uint64_t id = ++next_;
  auto pending = std::make_shared<Pending>();
  pending->done = std::move(done);
  pending->site = site_();
  pending->tool = name;
  pending->started_ms = steady_ms();
  pending->timeout_ms = timeout_ms;
  if (name == "ToolCreator" || name == "ToolDeletor") {
    pending->source = p;
    const std::string tool = args.is_object() ? args.value("name", "") : "";
    if (name == "ToolCreator") {
      pending->made = tool;
    } else {
      pending->removed = tool;
      pending->removed_cost = cost_of(*p, tool);
    }
  }
  pending_.emplace(id, pending);
  caf::actor me = caf::actor_cast<caf::actor>(self);
  std::weak_ptr<company::ToolSource> weak = p;
  auto call = [me, id, weak, name, args, ctx = pending->site.ctx] {
    auto source = weak.lock();
    if (!source) {
      // Recorded as a failure of the tool: it is gone.
      caf::anon_send(me, tool_done_atom::value, id, ToolResult::error("Tool `" + name + "` is no longer available."));
      return;
    }
    source->call(name, args, ctx,
                 [me, id](ToolResult r) { caf::anon_send(me, tool_done_atom::value, id, std::move(r)); });
  };
  if (cost.free() || !ledger_) return call();
  economy::ModelCost price;
  price.name = name;
  price.invoke_resource_cost = cost.invoke_resource_cost;
  price.invoke_expense_cost = cost.invoke_expense_cost;  // USD per call: the ledger's tool convention
  self->request(ledger_, caf::infinite, reserve_atom::value, tool_atom::value, price, pending->site.ctx.agent,
                pending->site.ctx.task_id)
      .then([this, id, name, call, usd = cost.invoke_expense_cost](LedgerReply& held) {
        auto it = pending_.find(id);
        if (it == pending_.end()) return;
        if (!held.ok) {
          ToolDone d = std::move(it->second->done);
          pending_.erase(it);
          if (failures_.health && has_breaker(name)) failures_.health->not_run(name);
          return d(ToolResult::error("Tool `" + name + "` was not run: " + held.error, held.budget.to_json()));
        }
        it->second->held = true;
        it->second->reservation = held.reservation;
        it->second->usd = usd;
        call();
      });
}

void SourcedTools::on_done(uint64_t id, ToolResult result) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  std::shared_ptr<Pending> p = std::move(it->second);
  pending_.erase(it);
  if (failures_.health && has_breaker(p->tool)) {
    // A call the model got wrong says nothing of the tool's health.
    const auto kind = company::classify_tool_error(result);
    const int64_t now = steady_ms();
    if (kind == company::ToolErrorClass::invalid_input) {
      failures_.health->not_run(p->tool);
    } else {
      auto change = failures_.health->record(p->tool, kind.has_value(), now - p->started_ms, now, p->timeout_ms);
      if (change && failures_.on_breaker) failures_.on_breaker(p->tool, *change, p->site.ctx);
    }
  }
  if (p->held) {
    // The tool ran (or tried to): its declared cost is due either way, as a
    // model call that failed after the source answered is.
    caf::anon_send(ledger_, settle_atom::value, tool_atom::value, p->reservation, p->site.ctx.agent,
                   p->site.ctx.task_id);
    if (p->site.charged) p->site.charged(p->usd);
  }
  if (result.ok && ledger_ && !p->removed.empty() && p->removed_cost.create_resource_cost > 0)
    caf::anon_send(ledger_, fire_atom::value, tool_atom::value, create_price(p->removed, p->removed_cost),
                   p->site.ctx.agent, p->site.ctx.task_id);
  if (result.ok && ledger_ && !p->made.empty()) return charge_creation(std::move(p), std::move(result));
  p->done(std::move(result));
}

economy::ModelCost SourcedTools::create_price(const std::string& tool, const company::ToolCost& cost) {
  economy::ModelCost price;
  price.name = tool;
  price.create_resource_cost = cost.create_resource_cost;
  price.create_expense_cost = cost.create_expense_cost;
  return price;
}

// A created tool's declared create costs are charged; when the budget cannot
// cover them the tool is deleted again and ToolCreator's answer is the refusal.
void SourcedTools::charge_creation(std::shared_ptr<Pending> p, ToolResult result) {
  auto source = p->source.lock();
  const company::ToolCost cost = source ? cost_of(*source, p->made) : company::ToolCost{};
  if (!cost.has_create_costs()) return p->done(std::move(result));
  self_
      ->request(ledger_, caf::infinite, hire_atom::value, tool_atom::value, create_price(p->made, cost),
                p->site.ctx.agent, p->site.ctx.task_id)
      .then([p, result = std::move(result)](LedgerReply& r) mutable {
        if (r.ok) return p->done(std::move(result));
        if (auto source = p->source.lock()) {
          const json del{{"name", p->made},
                         {"file_path", std::string(tools::kUserToolsPrefix) + "/" + p->made + ".py"}};
          source->call("ToolDeletor", del, p->site.ctx, [](ToolResult) {});
        }
        p->done(ToolResult::error("Tool `" + p->made + "` was not kept: " + r.error, r.budget.to_json()));
      });
}

}  // namespace kaisha::actors
