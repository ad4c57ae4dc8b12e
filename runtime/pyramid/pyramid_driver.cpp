#include "runtime/pyramid/pyramid_driver.hpp"

#include <cstdio>

#include <algorithm>
#include <utility>

#include "runtime/core/confined_fs.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/pyramid/agent_tools.hpp"
#include "runtime/pyramid/merge_plan.hpp"

namespace kaisha::pyramid {

using namespace driver;

namespace {

constexpr const char* kFinalOutput = "final_output";
// Its own strategy events (merge_plan, evolution, judge_failed).
constexpr const char* kStrategy = "pyramid";
constexpr size_t kNoSlot = static_cast<size_t>(-1);

// A tool's result as the model reads it (infiagent.md §10 item 48).
std::string tool_text(const company::ToolResult& r) {
  json j{{"status", r.ok ? "success" : "error"}};
  if (r.ok) {
    j["output"] = r.output.is_null() ? json(r.message) : r.output;
    j["error_information"] = "";
  } else {
    j["output"] = r.output.is_null() ? json("") : r.output;
    j["error_information"] = r.message;
  }
  return j.dump();
}

std::string error_text(const std::string& why) {
  return json{{"status", "error"}, {"output", ""}, {"error_information", why}}.dump();
}

llm::ChatMessage tool_message(const llm::ToolCall& call, std::string content) {
  return llm::ChatMessage{llm::Role::tool, std::move(content), {}, call.id, call.name};
}

std::string short_text(const std::string& s) { return utf8::one_line(s, 160); }

// "./a//b.md" -> "a/b.md", so paths written and paths required compare.
std::string normal_path(const std::string& path) {
  auto parts = split_relative(path);
  return parts.ok() ? join_relative(*parts) : path;
}

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// A branch's change set as its caller reads it: each list cut to its first
// 20 paths, with the full count beside it, so a branch that touched
// thousands of files does not fill the caller's prompt.
json bounded_changes(json changes) {
  constexpr size_t kShown = 20;
  for (const char* key : {"added", "modified", "removed", "conflicts"}) {
    auto it = changes.find(key);
    if (it == changes.end() || !it->is_array() || it->size() <= kShown) continue;
    changes[std::string(key) + "_total"] = it->size();
    it->erase(it->begin() + kShown, it->end());
  }
  return changes;
}

// Level-0 tools that may change the task's files: a judge's approval given
// before one of them ran no longer covers the call's work.
bool writes_files(const std::string& tool) {
  return tool == "file_write" || tool == "file_move" || tool == "dir_create" || tool == "execute_code" ||
         tool == "execute_shell";
}

// The router's best candidate, for the reason of a new-task trigger.
std::string best_of(const RouteDecision& r) {
  if (r.scores.empty()) return "no candidate";
  return r.scores.front().first + " at " + number_text(r.scores.front().second);
}

}  // namespace

PyramidDriver::PyramidDriver(const PyramidSetup& setup, QualityScores& quality, std::string task_id, std::string input,
                             RouteDecision route, std::function<bool()> listening, CandidatePool* pool)
    : setup_(setup),
      library_(*setup.library),
      quality_(quality),
      pool_(pool),
      task_id_(std::move(task_id)),
      input_(std::move(input)),
      route_(std::move(route)),
      listening_(std::move(listening)),
      index_(setup.count) {}

Effects PyramidDriver::start() {
  Effects out;
  if (setup_.router && route_.method == kRouteByEmbedding) {
    const CallId id = pending_.expect<ToolRan>([this](const ToolRan& r, Effects& o) { on_query_embedded(o, r); });
    out.push_back(RunTool{id, kEmbedQueryTool, json{{"text", input_}}.dump(), ""});
    return out;
  }
  routed(out);
  return out;
}

// The input's embedding (the company's embedder) routes the task; without
// it the task enters at the top agent, and the route says why.
void PyramidDriver::on_query_embedded(Effects& out, const ToolRan& r) {
  memory::Vector v;
  const json& vec = r.result.output.is_object() ? r.result.output.value("vector", json()) : json();
  if (r.result.ok && vec.is_array())
    for (const json& x : vec)
      if (x.is_number()) v.push_back(x.get<float>());
  if (!v.empty()) {
    route_ = setup_.router->route(v, AgentRouter::routing_quality(*setup_.library, quality_));
  } else {
    route_ = RouteDecision{};
    route_.agent = setup_.router->top();
    route_.fallback = "the embedder failed: " + (r.result.ok ? std::string("no vector") : r.result.message) +
                      "; entered at the top agent";
  }
  routed(out);
}

void PyramidDriver::routed(Effects& out) {
  if (setup_.router && setup_.route_method != RouteMethod::embedding && route_.method == "embedding") {
    const CallId id =
        pending_.expect<ModelAnswered>([this](const ModelAnswered& a, Effects& o) { on_route_scores(o, a); });
    llm::ChatRequest request;
    request.messages = {{llm::Role::user, setup_.texts->route(setup_.router->candidates_text(), input_), {}, "", ""}};
    request.temperature = 0;
    out.push_back(CallModel{id, "route", std::move(request), false});
    return;
  }
  enter(out);
}

// The model's scores replace or join the embedding's; without them the
// embedding's decision stands, with the reason.
void PyramidDriver::on_route_scores(Effects& out, const ModelAnswered& a) {
  std::string why;
  if (!a.ok) {
    why = "the routing model failed: " + (a.error.empty() ? std::string("no answer") : a.error);
  } else {
    out.push_back(journal_step(msg::EventKind::llm_response,
                               json{{"call", "route"}, {"text", a.response.message.content}},
                               a.response.usage.input_tokens, a.response.usage.output_tokens, a.expense));
    auto scores = setup_.router->read_model_scores(a.response.message.content);
    if (scores.ok())
      route_ = setup_.router->rescore(route_, *scores, setup_.route_method,
                                      AgentRouter::routing_quality(*setup_.library, quality_));
    else
      why = "the routing model's answer is unusable: " + scores.error().message;
  }
  if (!why.empty()) route_.fallback = why + "; routed by embedding";
  enter(out);
}

void PyramidDriver::enter(Effects& out) {
  out.push_back(journal_step(msg::EventKind::note, json{{"route", route_.to_json()}}));
  const AgentDefinition* entry = library_.find(route_.agent);
  if (!entry) {
    finish(out, false, "The pyramid has no agent '" + route_.agent + "' to start the task with.");
    return;
  }
  if (listening())
    report(out, msg::EventKind::route,
           route_.new_task ? "no agent matches well enough: " + entry->name + " takes it as a new task"
                           : "routed to " + entry->name,
           json{{"route", route_.to_json()}});
  if (route_.new_task)
    trigger(out, "new_task",
            "no agent matches the task well enough (best " + best_of(route_) + "); " + entry->name + " takes it",
            json{{"route", route_.to_json()}});
  call_agent(out, 0, kNoSlot, *entry, input_, entry->max_turns);
}

Effects PyramidDriver::on(const Outcome& o) {
  Effects out;
  if (finished_) return out;
  pending_.deliver(o, out);
  return out;
}

Effects PyramidDriver::cancel(const std::string& why) {
  Effects out;
  if (!finished_) finish(out, false, why);
  return out;
}

std::optional<ContextParts> PyramidDriver::context_parts(uint64_t call) const {
  auto it = calls_.find(call);
  if (it == calls_.end()) return std::nullopt;
  const Call& c = it->second;
  return setup_.context->parts(*c.agent, task_id_, index_, setup_.index_budget_tokens, tree_, c.id, c.env,
                               setup_.count);
}

// ------------------------------------------------------------------ calls

void PyramidDriver::call_agent(Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent,
                               std::string input, int64_t max_turns) {
  if (agent.candidates.size() > 1) return start_fork(out, parent, slot, agent, std::move(input), max_turns);
  begin(out, parent, slot, agent, std::move(input), max_turns, false);
}

uint64_t PyramidDriver::begin(Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent,
                              std::string input, int64_t max_turns, bool audit, uint64_t fork, size_t candidate) {
  const uint64_t id = tree_.push(parent, agent.name, agent.responsibility, input);
  if (id == 0) return 0;  // the parent has ended meanwhile
  ++calls_made_;
  Call& c = calls_[id];
  c.id = id;
  c.parent = parent;
  c.slot = slot;
  c.audit = audit;
  c.agent = &agent;
  c.input = std::move(input);
  c.max_turns = std::min(max_turns, agent.max_turns);
  c.fork = fork;
  c.candidate = candidate;
  std::string model = agent.model;
  if (fork) {
    const Branch& b = forks_.at(fork).branches[candidate];
    model = b.model;
    c.model = model;
    c.staff = candidate_instance(agent.name, b.index);
    c.quality_key = agent.name + "@" + model;
    c.branch = b.name;
  } else {
    c.staff = agent.name;
    c.quality_key = agent.name;
    // A call works where its caller does (a judge audits the branch it is asked about).
    if (auto p = calls_.find(parent); p != calls_.end()) c.branch = p->second.branch;
  }
  append(c, {llm::Role::user, c.input, {}, "", ""});
  json asked{{"call", id}, {"parent", parent}, {"input", c.input}};
  if (!c.branch.empty()) asked["branch"] = c.branch;
  out.push_back(journal_step(msg::EventKind::ask, std::move(asked), 0, 0, 0, c.staff));
  c.started_ms = setup_.now_ms ? setup_.now_ms() : 0;
  if (listening())
    report(out, msg::EventKind::ask, c.staff + ": " + short_text(c.input), json{{"call", id}, {"parent", parent}},
           c.staff);

  auto [it, fresh] = staff_.try_emplace(c.staff);
  Staff& s = it->second;
  if (!fresh) {
    if (s.state == HireState::hired)
      turn(out, id);
    else if (s.state == HireState::hiring)
      s.waiting.push_back(id);
    else
      end(out, id, failed_output(c.staff + " could not be hired"));
    return id;
  }
  s.waiting.push_back(id);
  const economy::ModelCost cost = setup_.cost_of(model);
  msg::AgentSpec spec;
  spec.name = c.staff;
  spec.base_model = cost.name;
  spec.model_ref = cost.model_ref;
  spec.type = cost.type;
  spec.system_prompt = setup_.context->system_prompt(agent, task_id_);
  spec.description = agent.description;
  spec.costs = economy::spec_costs_json(cost);
  const CallId hid = pending_.expect<HireAnswered>(
      [this, name = c.staff](const HireAnswered& a, Effects& o) { on_hired(o, name, a); });
  out.push_back(Hire{hid, std::move(spec), cost});
  return id;
}

// ------------------------------------------------------------------ forks

void PyramidDriver::start_fork(Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent,
                               std::string input, int64_t max_turns) {
  const uint64_t fid = ++last_fork_;
  Fork& f = forks_[fid];
  f.parent = parent;
  f.slot = slot;
  f.agent = &agent;
  f.input = std::move(input);
  f.max_turns = max_turns;
  if (auto p = calls_.find(parent); p != calls_.end()) f.from = p->second.branch;
  // The candidates still in the pool (item 54): a pruned one does not run,
  // a default runs alone.
  const std::vector<std::string> running = pool_ ? pool_->running(agent.name, agent.candidates) : agent.candidates;
  for (size_t i = 0; i < agent.candidates.size(); ++i) {
    if (std::find(running.begin(), running.end(), agent.candidates[i]) == running.end()) continue;
    Branch b;
    b.index = i;
    b.model = agent.candidates[i];
    b.name = "f" + std::to_string(fid) + "-" + std::to_string(i + 1);
    f.branches.push_back(std::move(b));
  }
  f.waiting = f.branches.size();
  for (size_t i = 0; i < f.branches.size(); ++i) {
    const CallId tid = pending_.expect<ToolRan>(
        [this, fid, i](const ToolRan& r, Effects& o) { on_branch_opened(o, fid, i, r.result); });
    out.push_back(RunTool{tid, kBranchOpenTool, json{{"from", f.from}, {"branch", f.branches[i].name}}.dump(), ""});
  }
}

void PyramidDriver::on_branch_opened(Effects& out, uint64_t fork, size_t candidate, const company::ToolResult& r) {
  auto it = forks_.find(fork);
  if (it == forks_.end()) return;
  Fork& f = it->second;
  if (!r.ok || !r.output.is_object())
    return branch_ended(
        out, fork, candidate,
        failed_output("could not make a branch of the task's directory for " + f.branches[candidate].model + ": " +
                      (r.ok ? std::string("the copy returned no manifest") : r.message)));
  f.branches[candidate].base = r.output;
  begin(out, f.parent, f.slot, *f.agent, f.input, f.max_turns, false, fork, candidate);
}

// Every candidate is done: each branch is closed to learn what it changed,
// then the accepted ones are merged (plan_fork).
void PyramidDriver::branch_ended(Effects& out, uint64_t fork, size_t candidate, FinalOutput fo) {
  auto it = forks_.find(fork);
  if (it == forks_.end()) return;
  Fork& f = it->second;
  f.branches[candidate].result = std::move(fo);
  if (--f.waiting > 0) return;
  for (size_t i = 0; i < f.branches.size(); ++i)
    if (!f.branches[i].base.is_null()) f.opened.push_back(i);  // one never opened has nothing to close
  if (f.opened.empty()) return fork_ended(out, fork);
  f.waiting = f.opened.size();
  for (size_t i : f.opened) {
    const Branch& b = f.branches[i];
    const CallId tid = pending_.expect<ToolRan>([this, fork, i](const ToolRan& r, Effects& o) {
      auto it = forks_.find(fork);
      if (it == forks_.end()) return;
      Branch& b = it->second.branches[i];
      b.changes = r.result.output.is_object() ? r.result.output : json::object();
      if (!r.result.ok) b.changes["error"] = r.result.message;
      if (--it->second.waiting == 0) plan_fork(o, fork);
    });
    json args{{"branch", b.name}, {"into", f.from}, {"base", b.base}, {"merge", false}};
    out.push_back(RunTool{tid, kBranchCloseTool, args.dump(), ""});
  }
}

// Eq. 12: every accepted change set is a merge candidate (merge_plan.hpp).
void PyramidDriver::plan_fork(Effects& out, uint64_t fork) {
  Fork& f = forks_.at(fork);
  f.candidates.clear();
  for (const Branch& b : f.branches) {
    MergeCandidate m;
    m.name = b.model;
    m.accepted = b.result->success && !b.changes.contains("error");
    m.q = quality_.of(f.agent->name + "@" + b.model);
    m.changed = changed_files(b.changes, b.name);
    f.candidates.push_back(std::move(m));
  }
  f.plan = plan_merges(f.candidates, f.excluded);
  json plan = f.plan.to_json();
  plan["by_q"] = json::object();
  for (const auto& m : f.candidates) plan["by_q"][m.name] = m.q;
  // Journaled before any merge takes effect: a resumed task plans the same.
  add_strategy_event(out, kStrategy, "merge_plan", f.agent->name + ": " + plan_text(f),
                     json{{"fork", fork}, {"plan", plan}}, true, f.agent->name);
  next_merge(out, fork);
}

// "merges mock:b, mock:c; rejects mock:a (its changes conflict ...)".
std::string PyramidDriver::plan_text(const Fork& f) {
  std::string merged, rejected;
  for (size_t i : f.plan.merge) merged += (merged.empty() ? "" : ", ") + f.branches[i].model;
  for (const auto& [i, why] : f.plan.rejected)
    rejected += (rejected.empty() ? "" : "; ") + f.branches[i].model + " (" + why + ")";
  const std::string text = merged.empty() ? "merges none" : "merges " + merged;
  return rejected.empty() ? text : text + "; rejects " + rejected;
}

bool PyramidDriver::has_changes(const Branch& b) {
  for (const char* key : {"added", "modified"})
    if (auto it = b.changes.find(key); it != b.changes.end() && it->is_array() && !it->empty()) return true;
  return false;
}

// The plan's merges run one after another (each into what the last left),
// then the change sets that did not reach main are recorded, then the
// branches are dropped.
void PyramidDriver::next_merge(Effects& out, uint64_t fork) {
  Fork& f = forks_.at(fork);
  while (f.merged.size() < f.plan.merge.size()) {
    const size_t i = f.plan.merge[f.merged.size()];
    Branch& b = f.branches[i];
    if (!has_changes(b)) {  // an empty change set merges as it is
      b.merged = true;
      f.merged.push_back(i);
      continue;
    }
    const CallId tid =
        pending_.expect<ToolRan>([this, fork, i](const ToolRan& r, Effects& o) { on_merged(o, fork, i, r.result); });
    json args{{"branch", b.name}, {"into", f.from}, {"base", b.base}, {"merge", true}};
    if (f.from.empty()) args["record"] = commit_meta(f, b, "");
    out.push_back(RunTool{tid, kBranchCloseTool, args.dump(), ""});
    return;
  }
  record_rejected(out, fork);
}

json PyramidDriver::commit_meta(const Fork& f, const Branch& b, const std::string& why) const {
  json m{{"agent", candidate_instance(f.agent->name, b.index)},
         {"model", b.model},
         {"q", quality_.of(f.agent->name + "@" + b.model)},
         {"why", why}};
  if (!b.result->verdict.is_null()) m["verdict"] = b.result->verdict;
  return m;
}

void PyramidDriver::on_merged(Effects& out, uint64_t fork, size_t i, const company::ToolResult& r) {
  auto it = forks_.find(fork);
  if (it == forks_.end()) return;
  Fork& f = it->second;
  Branch& b = f.branches[i];
  if (r.ok && r.output.is_object()) {
    b.changes = r.output;
    b.merged = true;
    f.merged.push_back(i);
    return next_merge(out, fork);
  }
  // It cannot be merged: it is out, and the plan is made again without it
  // (those it beat in a conflict may go in now; what is merged stays first).
  if (r.output.is_object()) b.changes = r.output;
  b.changes["error"] = r.message;
  b.result = failed_output("its branch could not be merged: " + r.message);
  f.excluded.push_back(i);
  f.candidates[i].accepted = false;
  f.plan = plan_merges(f.candidates, f.excluded);
  add_strategy_event(out, kStrategy, "merge_plan",
                     f.agent->name + ": the merge of " + b.name + " failed, so again: " + plan_text(f),
                     json{{"fork", fork},
                          {"plan", f.plan.to_json()},
                          {"replanned", "the merge of " + b.name + " failed: " + r.message}},
                     true, f.agent->name);
  next_merge(out, fork);
}

// A change set that did not reach main is kept in the history as a rejected
// commit (only main's history is kept: a fork inside a branch records none).
void PyramidDriver::record_rejected(Effects& out, uint64_t fork) {
  Fork& f = forks_.at(fork);
  while (f.recorded < f.opened.size()) {
    const size_t i = f.opened[f.recorded++];
    Branch& b = f.branches[i];
    if (b.merged || !f.from.empty() || !has_changes(b) || b.changes.contains("error")) continue;
    std::string why;
    if (auto r = f.plan.rejected.find(i); r != f.plan.rejected.end())
      why = r->second;
    else
      why = b.result->success ? "not merged" : "not accepted: " + b.result->error_information;
    b.why = why;
    const CallId tid = pending_.expect<ToolRan>([this, fork, i](const ToolRan& r, Effects& o) {
      auto it = forks_.find(fork);
      if (it == forks_.end()) return;
      if (r.result.ok && r.result.output.contains("commit"))
        it->second.branches[i].changes["commit"] = r.result.output["commit"];
      record_rejected(o, fork);
    });
    json args{
        {"branch", b.name}, {"into", f.from}, {"base", b.base}, {"merge", false}, {"record", commit_meta(f, b, why)}};
    out.push_back(RunTool{tid, kBranchCloseTool, args.dump(), ""});
    return;
  }
  // The branches are collected: what the history needs is in it.
  json names = json::array();
  for (size_t i : f.opened) names.push_back(f.branches[i].name);
  const CallId tid = pending_.expect<ToolRan>([this, fork](const ToolRan& r, Effects& o) {
    if (!r.result.ok)
      o.push_back(journal_step(msg::EventKind::note, json{{"fork", fork}, {"branch_drop_failed", r.result.message}}));
    if (forks_.count(fork)) fork_ended(o, fork);
  });
  out.push_back(RunTool{tid, kBranchDropTool, json{{"branches", std::move(names)}}.dump(), ""});
}

void PyramidDriver::fork_ended(Effects& out, uint64_t fork) {
  Fork f = std::move(forks_.at(fork));
  forks_.erase(fork);
  json branches = json::array();
  std::string failures;
  std::vector<std::string> ran, merged_models;
  for (size_t i = 0; i < f.branches.size(); ++i) {
    const Branch& b = f.branches[i];
    const FinalOutput& r = *b.result;
    ran.push_back(b.model);
    json j{{"model", b.model},   {"agent", candidate_instance(f.agent->name, b.index)},
           {"branch", b.name},   {"status", r.success ? "success" : "error"},
           {"output", r.output}, {"merged", b.merged}};
    if (b.merged) merged_models.push_back(b.model);
    if (!r.success) {
      j["error_information"] = r.error_information;
      failures += (failures.empty() ? "" : "; ") + b.model + ": " + r.error_information;
    }
    if (auto rj = f.plan.rejected.find(i); rj != f.plan.rejected.end()) j["rejected"] = rj->second;
    if (!b.changes.is_null()) {
      json changes = b.changes;
      changes.erase("hashes");  // the driver's, not the caller's
      if (changes.contains("commit")) j["commit"] = changes["commit"];
      changes.erase("commit");
      j["changes"] = bounded_changes(std::move(changes));
    }
    branches.push_back(std::move(j));
  }
  // The answer is the merged change set with the highest Q (the plan's first).
  const std::optional<size_t> answer = f.merged.empty() ? std::nullopt : std::optional<size_t>(f.merged.front());
  FinalOutput fo = answer ? *f.branches[*answer].result
                          : failed_output("none of " + f.agent->name + "'s " + std::to_string(f.branches.size()) +
                                          " candidate models succeeded: " + failures);
  out.push_back(journal_step(
      msg::EventKind::note,
      json{{"fork", fork}, {"agent", f.agent->name}, {"parent", f.parent}, {"from", f.from}, {"branches", branches}}, 0,
      0, 0, f.agent->name));
  if (listening()) {
    std::string merged_text;
    for (const auto& m : merged_models) merged_text += (merged_text.empty() ? "" : ", ") + m;
    report(out, msg::EventKind::branches,
           f.agent->name + ": " + std::to_string(f.branches.size()) + " candidate branches, " +
               (merged_text.empty() ? std::string("none merged") : "merged " + merged_text),
           json{{"fork", fork}, {"branches", branches}}, f.agent->name);
  }
  if (pool_)
    evolve(out, "fork " + std::to_string(fork),
           pool_->on_call(f.agent->name, ran, answer ? f.branches[*answer].model : ""), f.agent->name);
  // The merged files are now where the caller works (a branch copies no
  // hidden file, so none of those was merged).
  if (f.from.empty())
    for (size_t i : f.merged)
      for (const auto& file : f.branches[i].result->files)
        if (file.path.rfind('.', 0) != 0 && file.path.find("/.") == std::string::npos)
          index_.describe(file.path, file.description);
  json result = fo.to_json();
  result["branches"] = std::move(branches);
  answer_parent(out, f.parent, f.slot, *f.agent, fo, std::move(result));
}

// Pool changes (pruning, a default model): journaled, reported and saved
// as the pyramid's state under "pool/<agent>", named by what made them.
void PyramidDriver::evolve(Effects& out, const std::string& change, const std::vector<CandidatePool::Change>& changes,
                           const std::string& agent) {
  if (!pool_) return;
  for (const auto& c : changes)
    add_strategy_event(out, kStrategy, "evolution", c.agent + ": " + c.kind + " " + c.model + ": " + c.why, c.to_json(),
                       true, agent);
  out.push_back(SaveState{CandidatePool::state_key(agent), pool_->state_of(agent), change});
}

void PyramidDriver::drop_orphans() {
  for (auto k = calls_.begin(); k != calls_.end();) k = tree_.running(k->first) ? std::next(k) : calls_.erase(k);
  for (auto k = forks_.begin(); k != forks_.end();)
    k = k->second.parent != 0 && !calls_.count(k->second.parent) ? forks_.erase(k) : std::next(k);
}

void PyramidDriver::on_hired(Effects& out, const std::string& agent, const HireAnswered& a) {
  Staff& s = staff_[agent];
  std::vector<uint64_t> waiting = std::move(s.waiting);
  s.waiting.clear();
  if (!a.ok) {
    s.state = HireState::failed;
    out.push_back(journal_step(msg::EventKind::refusal, json{{"hire", agent}, {"error", a.error}}));
    for (uint64_t id : waiting)
      if (calls_.count(id)) end(out, id, failed_output("could not hire " + agent + ": " + a.error));
    return;
  }
  s.state = HireState::hired;
  if (listening()) report(out, msg::EventKind::hire, agent, json{{"agent", agent}, {"budget", a.budget}});
  for (uint64_t id : waiting)
    if (calls_.count(id)) turn(out, id);
}

std::vector<llm::ChatMessage> PyramidDriver::prompt_of(const Call& c) const {
  return setup_.context->messages(*c.agent, task_id_, index_, setup_.index_budget_tokens, tree_, c.id, c.env);
}

int64_t PyramidDriver::tokens_of(const llm::ChatMessage& m) const {
  int64_t n = setup_.count(m.content);
  for (const auto& t : m.tool_calls) n += setup_.count(t.arguments);
  return n;
}

int64_t PyramidDriver::env_tokens(const Call& c) const {
  int64_t n = 0;
  for (const auto& m : c.env) n += tokens_of(m);
  return n;
}

void PyramidDriver::append(Call& c, llm::ChatMessage m) {
  history_tokens_ += tokens_of(m);
  c.env.push_back(std::move(m));
}

// Starts a summary of the call's middle when C_ENV has passed τ; false when
// there is nothing to compress (the call goes on as it is).
bool PyramidDriver::compress(Effects& out, uint64_t id) {
  Call& c = calls_.at(id);
  const int64_t before = env_tokens(c);
  if (setup_.env_budget_tokens <= 0 || before <= setup_.env_budget_tokens) return false;
  // The latest interaction: the last assistant message and what answered it.
  size_t latest = c.env.size();
  while (latest > 1 && c.env[latest - 1].role != llm::Role::assistant) --latest;
  if (latest > 0) --latest;
  if (latest <= 1) return false;  // only the instruction comes before it
  std::string conversation;
  for (size_t i = 1; i < latest; ++i) {
    const auto& m = c.env[i];
    conversation += std::string(llm::to_string(m.role)) + (m.name.empty() ? "" : " " + m.name) + ": " +
                    utf8::truncate(m.content, 4000) + "\n";
    for (const auto& t : m.tool_calls)
      conversation += "  calls " + t.name + " " + utf8::truncate(t.arguments, 2000) + "\n";
  }
  const CallId aid = pending_.expect<AskAnswered>(
      [this, id, latest, before](const AskAnswered& a, Effects& o) { on_compressed(o, id, latest, before, a); });
  std::vector<llm::ChatMessage> request{{llm::Role::user, setup_.texts->compress(conversation), {}, "", ""}};
  out.push_back(Ask{aid, c.staff, "", "", false, std::move(request), {}});
  return true;
}

void PyramidDriver::on_compressed(Effects& out, uint64_t id, size_t latest, int64_t before, const AskAnswered& a) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Call& c = it->second;
  if (!a.ok) return end(out, id, failed_output("the summary of " + c.staff + "'s conversation failed: " + a.error));
  c.tokens_in += a.reply.usage.input_tokens;
  c.tokens_out += a.reply.usage.output_tokens;
  c.usd += a.expense;
  // The first instruction and the latest interaction stay; the summary, cut
  // to what room they leave, takes the place of everything between.
  int64_t kept = tokens_of(c.env[0]);
  for (size_t i = latest; i < c.env.size(); ++i) kept += tokens_of(c.env[i]);
  std::string summary = "Summary of your earlier work in this call:\n" + a.reply.output;
  const int64_t room = setup_.env_budget_tokens - kept;
  while (!summary.empty() && setup_.count(summary) > room) summary = utf8::truncate(summary, summary.size() / 2);
  std::vector<llm::ChatMessage> env;
  env.push_back(std::move(c.env[0]));
  if (!summary.empty()) env.push_back({llm::Role::user, std::move(summary), {}, "", ""});
  for (size_t i = latest; i < c.env.size(); ++i) env.push_back(std::move(c.env[i]));
  c.env = std::move(env);
  ++compressions_;
  c.compressed_last = true;
  const int64_t after = env_tokens(c);
  out.push_back(
      journal_step(msg::EventKind::note,
                   json{{"call", id}, {"compressed", json{{"before_tokens", before}, {"after_tokens", after}}}},
                   a.reply.usage.input_tokens, a.reply.usage.output_tokens, a.expense, c.staff));
  if (listening())
    report(
        out, msg::EventKind::retry,
        c.staff + "'s conversation compressed: " + std::to_string(before) + " → " + std::to_string(after) + " tokens",
        json{{"call", id}, {"before_tokens", before}, {"after_tokens", after}}, c.staff);
  turn(out, id);
}

void PyramidDriver::fit_env(Call& c) {
  const int64_t tau = setup_.env_budget_tokens;
  // Each round cuts the longest piece (a message's text, or a tool call's
  // arguments) by the excess; a few rounds settle any rounding.
  for (int round = 0; tau > 0 && round < 64; ++round) {
    const int64_t total = env_tokens(c);
    if (total <= tau) return;
    std::string* longest = nullptr;
    bool arguments = false;
    int64_t most = 0;
    for (size_t i = 1; i < c.env.size(); ++i) {
      if (const int64_t n = setup_.count(c.env[i].content); n > most)
        most = n, longest = &c.env[i].content, arguments = false;
      for (auto& t : c.env[i].tool_calls)
        if (const int64_t n = setup_.count(t.arguments); n > most) most = n, longest = &t.arguments, arguments = true;
    }
    if (!longest || most == 0) return;  // only the instruction is left
    const int64_t keep = std::max<int64_t>(0, most - (total - tau));
    size_t bytes = static_cast<size_t>(static_cast<double>(longest->size()) * static_cast<double>(keep) / most);
    bytes = std::min(bytes, longest->size() * 15 / 16);  // progress each round, however the tokens count
    // Arguments stay a JSON object, as providers require of a tool call.
    *longest =
        arguments ? json{{"shortened", utf8::shorten(*longest, bytes / 2)}}.dump() : utf8::shorten(*longest, bytes);
  }
}

void PyramidDriver::turn(Effects& out, uint64_t id) {
  Call& c = calls_.at(id);
  if (!c.compressed_last && compress(out, id)) return;
  c.compressed_last = false;
  fit_env(c);
  if (c.turns >= c.max_turns)
    return end(out, id,
               failed_output(c.staff + " reached its limit of " + std::to_string(c.max_turns) +
                             " turns without a final_output"));
  ++c.turns;
  std::vector<llm::ChatMessage> messages = prompt_of(c);
  int64_t tokens = 0;
  for (const auto& m : messages) tokens += tokens_of(m);
  largest_prompt_ = std::max(largest_prompt_, tokens);
  const CallId aid = pending_.expect<AskAnswered>([this, id](const AskAnswered& a, Effects& o) { on_turn(o, id, a); });
  out.push_back(Ask{aid, c.staff, "", "", false, std::move(messages), tools_of(library_, *c.agent, setup_.level0)});
}

void PyramidDriver::on_turn(Effects& out, uint64_t id, const AskAnswered& a) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;  // its caller ended meanwhile
  Call& c = it->second;
  if (!a.ok)
    return end(out, id,
               failed_output((a.refused ? "the ledger refused the call of " : "the model call of ") + c.staff +
                             (a.refused ? ": " : " failed: ") + a.error));
  c.tokens_in += a.reply.usage.input_tokens + a.reply.extra_usage.input_tokens;
  c.tokens_out += a.reply.usage.output_tokens + a.reply.extra_usage.output_tokens;
  c.usd += a.expense;
  const std::vector<llm::ToolCall>& requests = a.reply.tool_requests;
  append(c, {llm::Role::assistant, a.reply.output, requests, "", ""});
  if (listening() && !a.reply.output.empty())
    report(out, msg::EventKind::thinking, short_text(a.reply.output), json{{"call", id}}, c.staff);

  if (requests.empty()) {
    if (c.nudges >= setup_.max_nudges)
      return end(out, id,
                 failed_output(c.staff + " called no tool after " + std::to_string(setup_.max_nudges) + " reminders"));
    ++c.nudges;
    const std::string nudge = setup_.texts->nudge(setup_.max_nudges - c.nudges);
    append(c, {llm::Role::user, nudge, {}, "", ""});
    out.push_back(journal_step(msg::EventKind::note, json{{"call", id}, {"nudge", c.nudges}}, 0, 0, 0, c.staff));
    return turn(out, id);
  }
  const bool final_called =
      std::any_of(requests.begin(), requests.end(), [](const llm::ToolCall& r) { return r.name == kFinalOutput; });
  if (final_called && requests.size() > 1) {
    // Nothing may come with or after final_output: none of them runs.
    const llm::ToolCall* final_call = nullptr;
    for (const auto& r : requests) {
      if (r.name == kFinalOutput && !final_call)
        final_call = &r;
      else
        append(c, tool_message(r, error_text("not run: this turn also called final_output")));
    }
    return reject_final(out, id, final_call->id, "final_output must be the only tool call of its turn");
  }
  if (final_called) return on_final(out, id, requests.front());
  c.batch.clear();
  for (const auto& r : requests) c.batch.push_back(Slot{r, std::nullopt});
  run_tools(out, id);
}

// ------------------------------------------------------------------ tools

void PyramidDriver::run_tools(Effects& out, uint64_t id) {
  Call& c = calls_.at(id);
  c.waiting = c.batch.size();
  const size_t cap = static_cast<size_t>(std::max(1, setup_.max_calls_per_turn));
  const size_t asked = c.batch.size();
  // A planner hands out at most K_max sub-tasks per turn (item 11).
  const size_t k_max = static_cast<size_t>(library_.max_children());
  size_t sub_tasks = 0;
  // Every slot is started before any result is handed back, so the calls of
  // one turn run concurrently; slot_done resumes the call after the last.
  for (size_t i = 0; i < asked; ++i) {
    auto it = calls_.find(id);
    if (it == calls_.end()) return;  // ended by what a slot did
    const AgentDefinition* callee = library_.find(it->second.batch[i].request.name);
    if (i < cap && callee && callee->level >= 1 && ++sub_tasks > k_max) {
      slot_done(out, id, i,
                error_text("not run: a turn hands out at most " + std::to_string(k_max) +
                           " sub-tasks (max_children); make this call again in a later turn"));
      continue;
    }
    if (i < cap) {
      dispatch(out, it->second, i);
      continue;
    }
    slot_done(out, id, i,
              error_text("not run: this turn made " + std::to_string(asked) + " tool calls and at most " +
                         std::to_string(cap) + " run at once; make this call again in a later turn"));
  }
}

void PyramidDriver::dispatch(Effects& out, Call& c, size_t i) {
  const uint64_t id = c.id;
  const llm::ToolCall& req = c.batch[i].request;
  out.push_back(journal_step(msg::EventKind::tool_call,
                             json{{"call", id}, {"tool", req.name}, {"arguments", req.arguments}}, 0, 0, 0, c.staff));
  if (listening())
    report(out, msg::EventKind::tool_call, req.name + " " + short_text(req.arguments), json{{"call", id}}, c.staff);
  if (Status s = check_allowed(*c.agent, req.name); !s.ok())
    return slot_done(out, id, i, error_text(s.error().message));
  if (const AgentDefinition* callee = library_.find(req.name)) {
    auto call = parse_agent_call(*callee, req.arguments, setup_.limits.max_output_bytes);
    if (!call.ok()) return slot_done(out, id, i, error_text(call.error().message));
    if (callee->level < 0) c.judge_asked_at[i] = c.writes;
    if (call->references.empty() || !setup_.check_files)
      return call_agent(out, id, i, *callee, instruction_with_references(*call), call->max_turns);
    // References are checked before the callee reads them (item 11), as a
    // final output's files are.
    json paths = json::array();
    for (const auto& r : call->references) paths.push_back(r.path);
    const CallId tid =
        pending_.expect<ToolRan>([this, id, i, callee, call = std::move(call).value()](const ToolRan& r, Effects& o) {
          if (!calls_.count(id)) return;
          if (!r.result.ok) return slot_done(o, id, i, error_text("not run: " + r.result.message));
          call_agent(o, id, i, *callee, instruction_with_references(call), call.max_turns);
        });
    out.push_back(
        RunTool{tid, kCheckFilesTool, json{{"paths", std::move(paths)}, {"list", "references"}}.dump(), c.branch});
    return;
  }
  if (!setup_.level0.count(req.name))
    return slot_done(out, id, i, error_text("the tool '" + req.name + "' is not available in this runtime"));
  const CallId tid = pending_.expect<ToolRan>([this, id, i](const ToolRan& r, Effects& o) {
    auto it = calls_.find(id);
    if (it != calls_.end() && r.result.ok && i < it->second.batch.size()) {
      const llm::ToolCall& done = it->second.batch[i].request;
      it->second.succeeded.insert(done.name);
      if (writes_files(done.name)) ++it->second.writes;
      // What it wrote: file_write's file, file_move's destination.
      const char* key = done.name == "file_write" ? "file_path" : done.name == "file_move" ? "destination" : nullptr;
      json args = key ? json::parse(done.arguments, nullptr, false) : json();
      if (key && args.is_object() && args.contains(key) && args[key].is_string())
        it->second.written.push_back(normal_path(args[key].get<std::string>()));
    }
    // What a program made (item 40: C_LM sees files that programs created).
    if (it != calls_.end() && r.result.output.is_object())
      if (auto f = r.result.output.find("files_changed"); f != r.result.output.end() && f->is_array())
        for (const json& p : *f)
          if (p.is_string()) it->second.produced.push_back(normal_path(p.get<std::string>()));
    slot_done(o, id, i, tool_text(r.result));
  });
  // The judge reads and runs; its programs cannot write the task's files (item 28).
  const bool judge_run = c.agent->level < 0 && req.name == "execute_code";
  out.push_back(RunTool{tid, judge_run ? kJudgeExecuteTool : req.name, req.arguments, c.branch});
}

void PyramidDriver::slot_done(Effects& out, uint64_t id, size_t i, std::string result) {
  auto it = calls_.find(id);
  if (it == calls_.end() || i >= it->second.batch.size() || it->second.batch[i].result) return;
  Call& c = it->second;
  Slot& slot = c.batch[i];
  out.push_back(journal_step(msg::EventKind::tool_result,
                             json{{"call", id}, {"tool", slot.request.name}, {"result", result}}, 0, 0, 0, c.staff));
  if (listening())
    report(out, msg::EventKind::tool_result, slot.request.name + " → " + short_text(result), json{{"call", id}},
           c.staff);
  slot.result = std::move(result);
  if (--c.waiting > 0) return;
  // Every result of the turn is in: they go back in call order.
  for (Slot& s : c.batch) append(c, tool_message(s.request, std::move(*s.result)));
  c.batch.clear();
  turn(out, id);
}

// ----------------------------------------------------------- final_output

void PyramidDriver::on_final(Effects& out, uint64_t id, const llm::ToolCall& call) {
  auto fo = parse_final_output(call.arguments, setup_.limits);
  if (!fo.ok()) return reject_final(out, id, call.id, fo.error().message);
  // The workflow's review steps come before a success (item 34).
  if (fo->success) {
    const Call& c = calls_.at(id);
    std::vector<std::string> skipped;
    for (const ReviewStep& step : c.agent->review) {
      const bool done = step.file.empty() ? c.succeeded.count(step.call) > 0
                                          : std::find(c.written.begin(), c.written.end(), step.file) != c.written.end();
      if (!done) skipped.push_back(step.describe());
    }
    if (!skipped.empty()) {
      std::string list;
      for (const auto& s : skipped) list += (list.empty() ? "" : "; ") + s;
      out.push_back(
          journal_step(msg::EventKind::note, json{{"call", id}, {"review_skipped", skipped}}, 0, 0, 0, c.staff));
      return reject_final(
          out, id, call.id,
          "your workflow's review steps are not done yet: " + list + ". Do them, then call final_output again");
    }
  }
  // A call that wrote files hands them on by reference (item 32).
  if (const Call& c = calls_.at(id); fo->success && fo->files.empty() && !c.written.empty()) {
    std::string list;
    for (size_t i = 0; i < c.written.size() && i < 10; ++i) list += (i ? ", " : "") + c.written[i];
    return reject_final(out, id, call.id,
                        "this call wrote files (" + list +
                            "); list the ones that matter in 'files', each with its path and a description");
  }
  if (!setup_.check_files || fo->files.empty()) return accept_final(out, id, std::move(fo).value(), call.id);
  // References are checked before anybody reads them.
  json paths = json::array();
  for (const auto& f : fo->files) paths.push_back(f.path);
  const CallId tid = pending_.expect<ToolRan>(
      [this, id, fo = std::move(fo).value(), call_id = call.id](const ToolRan& r, Effects& o) mutable {
        if (!calls_.count(id)) return;
        if (!r.result.ok) return reject_final(o, id, call_id, r.result.message);
        accept_final(o, id, std::move(fo), call_id);
      });
  out.push_back(RunTool{tid, kCheckFilesTool, json{{"paths", std::move(paths)}}.dump(), calls_.at(id).branch});
}

void PyramidDriver::reject_final(Effects& out, uint64_t id, const std::string& call_id, const std::string& why) {
  Call& c = calls_.at(id);
  ++c.bad_finals;
  out.push_back(
      journal_step(msg::EventKind::note, json{{"call", id}, {"final_output_refused", why}}, 0, 0, 0, c.staff));
  if (c.bad_finals > setup_.max_final_output_retries)
    return end(
        out, id,
        failed_output("no valid final_output after " + std::to_string(c.bad_finals) + " attempts; last: " + why));
  const std::string text = setup_.texts->final_output_retry(why, setup_.max_final_output_retries - c.bad_finals + 1);
  append(c, tool_message(llm::ToolCall{call_id, kFinalOutput, ""}, error_text(text)));
  turn(out, id);
}

void PyramidDriver::accept_final(Effects& out, uint64_t id, FinalOutput fo, const std::string& call_id) {
  Call& c = calls_.at(id);
  const AgentDefinition* judge = library_.judge();
  // The agent's own judge call counts only when nothing was written after it
  // (item 25): its verdict is the one attached.
  const bool approved = c.approved && c.approved_writes == c.writes;
  if (fo.success && approved) fo.verdict = c.approved_verdict;
  const bool audit = fo.success && setup_.enforce_judge && judge && c.agent->level >= 1 && !approved;
  if (!audit) return end(out, id, std::move(fo));
  // The runtime has the judge check a success nobody checked yet.
  ++c.audits;
  c.final_call_id = call_id;
  c.claimed = std::move(fo);
  start_audit(out, id);
}

void PyramidDriver::start_audit(Effects& out, uint64_t id) {
  Call& c = calls_.at(id);
  const AgentDefinition* judge = library_.judge();
  const std::string request = setup_.texts->judge_request(c.input, c.staff, c.claimed->to_json().dump());
  if (listening())
    report(out, msg::EventKind::retry,
           "the judge audits " + c.staff + "'s result (" + std::to_string(c.audits) + " of " +
               std::to_string(setup_.max_judge_retries + 1) + " at most)",
           json{{"call", id}}, c.staff);
  begin(out, id, kNoSlot, *judge, request, judge->max_turns, true);
}

// The one path of a judge's verdict on call `id`'s work, whether the runtime
// audited it or the agent called the judge itself: Q moves, the verdict is
// journaled, and a candidate's verdict moves its pool.
double PyramidDriver::apply_verdict(Effects& out, uint64_t id, const FinalOutput& verdict, const char* asked_by) {
  Call& c = calls_.at(id);
  const double before = quality_.of(c.quality_key);
  const double q = quality_.update(c.quality_key, verdict.success, setup_.wall_ms ? setup_.wall_ms() : 0);
  ++c.verdicts;
  const json v = verdict.to_json();
  out.push_back(journal_step(msg::EventKind::note,
                             json{{"call", id}, {"verdict", v}, {"quality", q}, {"asked_by", asked_by}}, 0, 0, 0,
                             c.staff));
  if (listening())
    report(out, msg::EventKind::verdict,
           verdict.success ? "approved" : "rejected: " + short_text(verdict.error_information),
           json{{"call", id}, {"verdict", v}, {"quality", q}, {"asked_by", asked_by}}, c.staff);
  if (q < setup_.poor_quality && before >= setup_.poor_quality)
    trigger(out, "poor_performance",
            c.quality_key + "'s quality score fell to " + number_text(q) + ", below " +
                number_text(setup_.poor_quality) + ", after " + (verdict.success ? "an approval" : "a rejection"),
            json{{"agent", c.quality_key}, {"q", q}, {"threshold", setup_.poor_quality}}, c.staff);
  if (pool_ && c.fork)
    evolve(out, "call " + std::to_string(id) + " verdict " + std::to_string(c.verdicts),
           pool_->on_verdict(c.agent->name, c.model, verdict.success), c.agent->name);
  return q;
}

void PyramidDriver::on_verdict(Effects& out, uint64_t id, const FinalOutput& verdict) {
  Call& c = calls_.at(id);
  if (verdict.broken) {
    // The judge could not rule: no verdict, no retry used, Q unchanged.
    --c.audits;
    ++c.judge_failures;
    add_strategy_event(out, kStrategy, "judge_failed",
                       "the judge could not audit " + c.staff + "'s result: " + short_text(verdict.error_information),
                       json{{"call", id}, {"why", verdict.error_information}}, true, c.staff);
    if (c.judge_failures > setup_.max_judge_failures) {
      c.claimed.reset();
      return end(out, id,
                 failed_output("the judge could not audit the result (" + std::to_string(c.judge_failures) +
                               " attempts; last: " + verdict.error_information +
                               "); this is not a rejection, the quality score is unchanged"));
    }
    ++c.audits;
    return start_audit(out, id);
  }
  const json v = verdict.to_json();
  apply_verdict(out, id, verdict, "runtime");
  FinalOutput claimed = std::move(*c.claimed);
  c.claimed.reset();
  if (verdict.success) {
    claimed.verdict = v;
    return end(out, id, std::move(claimed));
  }
  if (c.audits > setup_.max_judge_retries) {
    FinalOutput failed = failed_output("the judge rejected the result " + std::to_string(c.audits) +
                                       " times; last: " + verdict.error_information);
    failed.broken = false;
    failed.output = verdict.output;
    failed.verdict = v;
    return end(out, id, std::move(failed));
  }
  const std::string text = setup_.texts->judge_rejection(v.dump(), setup_.max_judge_retries - c.audits + 1);
  append(c, tool_message(llm::ToolCall{c.final_call_id, kFinalOutput, ""}, error_text(text)));
  turn(out, id);
}

// -------------------------------------------------------------------- end

void PyramidDriver::end(Effects& out, uint64_t id, FinalOutput fo) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Call c = std::move(it->second);
  calls_.erase(it);
  tree_.pop(id);
  // Calls it made that still run have nobody to answer to.
  drop_orphans();
  // A branch's files stay in its branch until it is merged. A file the call
  // wrote but did not describe is indexed with a description of where it
  // came from (item 40), never over a producer's own.
  if (c.branch.empty()) {
    for (const auto& f : fo.files) index_.describe(f.path, f.description);
    for (const auto& path : c.written)
      if (!index_.description(path)) index_.describe(path, "written by " + c.agent->name + " (no description given)");
    for (const auto& path : c.produced)
      if (!index_.description(path))
        index_.describe(path, "made by a program of " + c.agent->name + " (no description given)");
  }
  const json result = fo.to_json();
  out.push_back(journal_step(msg::EventKind::answer, json{{"call", id}, {"final_output", result}}, c.tokens_in,
                             c.tokens_out, c.usd, c.staff));
  if (listening())
    report(
        out, msg::EventKind::answer,
        c.staff + (fo.success ? ": success: " + short_text(fo.output) : ": error: " + short_text(fo.error_information)),
        json{{"call", id}, {"turns", c.turns}, {"latency_ms", setup_.now_ms ? setup_.now_ms() - c.started_ms : 0}},
        c.staff)
        .costing(c.tokens_in, c.tokens_out, c.usd);
  if (auto p = calls_.find(c.parent); p != calls_.end()) {
    p->second.tokens_in += c.tokens_in;
    p->second.tokens_out += c.tokens_out;
    p->second.usd += c.usd;
  }
  if (c.fork) return branch_ended(out, c.fork, c.candidate, std::move(fo));
  if (c.audit) return on_verdict(out, c.parent, fo);
  answer_parent(out, c.parent, c.slot, *c.agent, fo, result);
}

void PyramidDriver::answer_parent(Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent,
                                  const FinalOutput& fo, json result) {
  if (parent == 0) {
    final_ = result;
    return finish(out, fo.success, fo.success ? fo.output : fo.error_information);
  }
  auto p = calls_.find(parent);
  if (p == calls_.end()) return;
  Call& pc = p->second;
  if (agent.level < 0 && !fo.broken) {
    // The agent's own judge call: its verdict takes the runtime audit's path.
    apply_verdict(out, parent, fo, "agent");
    const auto at = pc.judge_asked_at.find(slot);
    // An approval counts when nothing was written since the judge was asked.
    if (fo.success && at != pc.judge_asked_at.end() && at->second == pc.writes) {
      pc.approved = true;
      pc.approved_writes = pc.writes;
      pc.approved_verdict = fo.to_json();
    }
  } else if (agent.level >= 1 && fo.success) {
    ++pc.writes;  // a sub-agent works in the same files
  }
  if (fo.success) pc.succeeded.insert(agent.name);
  slot_done(out, parent, slot, result.dump());
}

void PyramidDriver::finish(Effects& out, bool ok, std::string text) {
  if (finished_) return;
  finished_ = true;
  for (const auto& [name, s] : staff_)
    if (s.state == HireState::hired) out.push_back(Fire{name, 0});
  json agents = json::array();
  for (const auto& [name, s] : staff_) agents.push_back(name);
  json m{{"strategy", "pyramid"},
         {"route", route_.to_json()},
         {"agents", std::move(agents)},
         {"calls", calls_made_},
         {"largest_prompt_tokens", largest_prompt_},
         {"history_tokens", history_tokens_},
         {"quality", quality_.to_json()}};
  if (!final_.is_null()) m["final_output"] = final_;
  calls_.clear();
  forks_.clear();
  pending_.clear();
  out.push_back(Finish{ok, std::move(text), std::move(m)});
}

void PyramidDriver::trigger(Effects& out, const std::string& kind, const std::string& reason, json data,
                            const std::string& agent) const {
  data["kind"] = kind;
  data["reason"] = reason;
  out.push_back(journal_step(msg::EventKind::note, json{{"trigger", data}}, 0, 0, 0, agent));
  if (listening()) report(out, msg::EventKind::trigger, kind + ": " + reason, json{{"trigger", data}}, agent);
}

Report& PyramidDriver::report(Effects& out, msg::EventKind kind, std::string text, json data, std::string agent) const {
  out.push_back(Report{kind, std::move(text), std::move(data), std::move(agent)});
  return std::get<Report>(out.back());
}

}  // namespace kaisha::pyramid
