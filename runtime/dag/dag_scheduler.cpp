#include "runtime/dag/dag_scheduler.hpp"

#include <algorithm>

namespace kaisha::planning {

const char* to_string(SubtaskState s) {
  switch (s) {
    case SubtaskState::pending:
      return "pending";
    case SubtaskState::running:
      return "running";
    case SubtaskState::completed:
      return "completed";
    case SubtaskState::failed:
      return "failed";
    case SubtaskState::skipped:
      return "skipped";
  }
  return "?";
}

DagScheduler::DagScheduler(SubtaskDag dag, SchedulerOptions options)
    : dag_(std::move(dag)), options_(options), slots_(dag_.size()) {
  if (options_.max_concurrent == 0) options_.max_concurrent = 1;
  if (options_.max_retries < 0) options_.max_retries = 0;
}

bool DagScheduler::is_done(size_t i) const {
  SubtaskState s = slots_[i].state;
  return s == SubtaskState::completed || s == SubtaskState::failed || s == SubtaskState::skipped;
}

bool DagScheduler::finished() const {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (!is_done(i)) return false;
  return true;
}

std::vector<Assignment> DagScheduler::start_ready() {
  // Skips first, in topological order, so a skip unlocks (and skips) its
  // own dependents in the same pass.
  if (options_.on_failed_dependency == DependencyFailurePolicy::skip) {
    for (size_t i : dag_.topological_order()) {
      if (slots_[i].state != SubtaskState::pending) continue;
      for (size_t p : dag_.predecessors(i)) {
        SubtaskState ps = slots_[p].state;
        if (ps == SubtaskState::failed || ps == SubtaskState::skipped) {
          slots_[i].state = SubtaskState::skipped;
          slots_[i].error = "skipped because its dependency " + dag_.at(p).id + " " + to_string(ps);
          break;
        }
      }
    }
  }

  std::vector<size_t> ready;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].state != SubtaskState::pending) continue;
    const auto& preds = dag_.predecessors(i);
    if (std::all_of(preds.begin(), preds.end(), [&](size_t p) { return is_done(p); })) ready.push_back(i);
  }
  // Priority enum order is high < medium < low; stable keeps plan order.
  std::stable_sort(ready.begin(), ready.end(),
                   [&](size_t a, size_t b) { return dag_.at(a).priority < dag_.at(b).priority; });

  std::vector<Assignment> out;
  for (size_t i : ready) {
    if (running_ >= options_.max_concurrent) break;
    Slot& slot = slots_[i];
    slot.state = SubtaskState::running;
    ++slot.attempts;
    ++running_;
    const Subtask& s = dag_.at(i);
    Assignment a{i, s.id, s.description, s.expected_output, s.required_specialization, slot.attempts, {}};
    for (size_t p : dag_.predecessors(i)) {
      const Slot& ps = slots_[p];
      bool ok = ps.state == SubtaskState::completed;
      a.context.push_back({dag_.at(p).id, dag_.at(p).description, ok, ok ? ps.output : ps.error});
    }
    out.push_back(std::move(a));
  }
  return out;
}

Result<size_t> DagScheduler::running_index(std::string_view id) const {
  auto i = dag_.index_of(id);
  if (!i) return Error{"scheduler", "unknown subtask id '" + std::string(id) + "'"};
  if (slots_[*i].state != SubtaskState::running)
    return Error{"scheduler", "subtask '" + std::string(id) + "' is " + to_string(slots_[*i].state) + ", not running"};
  return *i;
}

Status DagScheduler::complete(std::string_view id, std::string output) {
  Result<size_t> i = running_index(id);
  if (!i) return i.error();
  Slot& slot = slots_[*i];
  slot.state = SubtaskState::completed;
  slot.output = std::move(output);
  slot.error.clear();
  --running_;
  return Status::Ok();
}

Result<bool> DagScheduler::fail(std::string_view id, std::string error) {
  Result<size_t> i = running_index(id);
  if (!i) return i.error();
  Slot& slot = slots_[*i];
  --running_;
  slot.error = std::move(error);
  if (slot.attempts <= options_.max_retries) {
    slot.state = SubtaskState::pending;  // offered again by start_ready
    return true;
  }
  slot.state = SubtaskState::failed;
  return false;
}

Result<PlanOutcome> DagScheduler::outcome() const {
  if (!finished()) return Error{"scheduler", "the plan is not finished"};
  PlanOutcome out;
  bool any_completed = false;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    out.results.push_back({dag_.at(i).id, dag_.at(i).description, s.state, s.output, s.error, s.attempts});
    any_completed |= s.state == SubtaskState::completed;
  }
  if (!any_completed) {
    out.kind = PlanOutcome::Kind::all_failed;
    return out;
  }
  if (dag_.shape() == DagShape::sequential && !options_.always_synthesize) {
    size_t last = dag_.levels().back().front();
    if (slots_[last].state == SubtaskState::completed) {
      out.kind = PlanOutcome::Kind::answer;
      out.answer = slots_[last].output;
      return out;
    }
  }
  out.kind = PlanOutcome::Kind::synthesize;
  return out;
}

std::string render_context(const std::vector<PredecessorResult>& context) {
  std::string out;
  for (const PredecessorResult& p : context) {
    if (!out.empty()) out += "\n\n";
    if (p.ok)
      out += "[" + p.id + "] " + p.description + "\nResult:\n" + p.text;
    else
      out += "[" + p.id + " FAILED] " + p.description + "\nError: " + p.text +
             "\n(Its result is missing; do what you can without it and say what is missing.)";
  }
  return out;
}

std::string render_results(const std::vector<SubtaskResult>& results) {
  std::string out;
  for (const SubtaskResult& r : results) {
    if (!out.empty()) out += "\n\n";
    switch (r.state) {
      case SubtaskState::completed:
        out += "[" + r.id + "] " + r.description + "\nResult:\n" + r.output;
        break;
      case SubtaskState::failed:
        out += "[" + r.id + " FAILED] " + r.description + "\nError: " + r.error;
        break;
      case SubtaskState::skipped:
        out += "[" + r.id + " SKIPPED] " + r.description + "\nReason: " + r.error;
        break;
      default:
        out += "[" + r.id + " " + to_string(r.state) + "] " + r.description;
        break;
    }
  }
  return out;
}

}  // namespace kaisha::planning
