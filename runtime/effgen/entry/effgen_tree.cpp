// effgen's tree. What its journal holds (runtime/effgen/effgen_driver.cpp,
// actors/agents/judge_actor.cpp): the planner's routing note, its decomposition
// call, the plan note (subtasks with their dependencies), then per attempt
// at a subtask the worker's llm_request and the planner's llm_response under
// the worker's name carrying the subtask's id ("job") and cost, the judge's
// verdict on that worker's result, and the synthesis call. A worker runs one
// subtask at a time, so a worker's request belongs to its next answer.
#include <map>

#include "runtime/effgen/entry/effgen_view.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {

namespace {

using nlohmann::json;
using Id = TreeBuilder::Id;

class EffgenTree {
 public:
  explicit EffgenTree(const TaskRecord& task) : b_(task) {}

  TaskTree build(const std::vector<TaskStep>& steps) {
    for (const auto& s : steps) step(s);
    for (auto& [id, job] : jobs_) label_job(job);
    return b_.finish();
  }

 private:
  struct Job {
    Id node = 0;
    std::string id, description;
    std::vector<std::string> after, workers;
    int attempts = 0;
    bool asked = false;
  };

  void step(const TaskStep& s) {
    const json& p = s.payload;
    if (s.kind == "note" && field(p, "routing").is_object()) return routing(s);
    if (s.kind == "note" && field(p, "plan").is_array()) return plan(s);
    if (s.kind == "note" && field(p, "metadata").is_object()) return;  // the summary the result line shows
    if (s.kind == "note" && field(p, "verdict").is_object()) return verdict(s);
    if (s.kind == "llm_response" && field(p, "job").is_string()) return answered(s);
    if (s.kind == "llm_response" && field(p, "call").is_string()) return planner_call(s);
    if (s.kind == "llm_request" && field(p, "prompt").is_string()) {
      requested_[s.agent] = s.at;
      return;
    }
    TaskTree n = plain_step(s);
    if (s.kind == "refusal") n.status = "refused";
    if (s.kind == "error") n.status = "failed";
    b_.add(TreeBuilder::kRoot, std::move(n), s.at);
  }

  void routing(const TaskStep& s) {
    const json& r = field(s.payload, "routing");
    TaskTree n;
    n.kind = "routing";
    n.agent = s.agent;
    n.label = "routing: " + (text_field(r, "kind").empty() ? std::string("?") : text_field(r, "kind"));
    if (const json& c = field(r, "complexity_score"); c.is_number())
      n.label += " (complexity " + short_text(c.dump(), 8) + ")";
    b_.add(TreeBuilder::kRoot, std::move(n), s.at);
  }

  void planner_call(const TaskStep& s) {
    TaskTree n;
    n.kind = "model";
    n.agent = s.agent;
    n.label = s.agent + ": " + short_text(text_field(s.payload, "call"), 40);
    const Id id = b_.add(TreeBuilder::kRoot, std::move(n));
    b_.charge(id, s);
  }

  void plan(const TaskStep& s) {
    const json& items = field(s.payload, "plan");
    TaskTree n;
    n.kind = "plan";
    n.agent = s.agent;
    n.label = "plan: " + std::to_string(items.size()) + " subtask" + (items.size() == 1 ? "" : "s");
    if (const std::string shape = text_field(s.payload, "shape"); !shape.empty()) n.label += ", " + shape;
    plan_ = b_.add(TreeBuilder::kRoot, std::move(n), s.at);
    for (const auto& item : items) {
      const std::string id = text_field(item, "id");
      if (id.empty()) {
        TaskStep odd = s;
        odd.payload = item;
        odd.tokens_in = odd.tokens_out = 0;
        odd.usd = 0;
        b_.add(plan_, plain_step(odd));
        continue;
      }
      Job& job = job_named(id);
      job.description = text_field(item, "description");
      for (const auto& d : field(item, "depends_on"))
        if (d.is_string()) job.after.push_back(d.get<std::string>());
    }
  }

  // The subtask `id`, made (under the plan, or the task when there is none:
  // a single-agent run's one job is "task") the first time it is named.
  Job& job_named(const std::string& id) {
    auto [it, fresh] = jobs_.try_emplace(id);
    if (fresh) {
      it->second.id = id;
      TaskTree n;
      n.kind = "subtask";
      it->second.node = b_.add(plan_, std::move(n));
    }
    return it->second;
  }

  void answered(const TaskStep& s) {
    Job& job = job_named(text_field(s.payload, "job"));
    ++job.attempts;
    bool known = false;
    for (const auto& w : job.workers) known = known || w == s.agent;
    if (!known) job.workers.push_back(s.agent);
    if (auto r = requested_.find(s.agent); r != requested_.end()) {
      b_.start(job.node, r->second);
      requested_.erase(r);
    }
    b_.end(job.node, s.at);
    b_.charge(job.node, s);
    last_job_[s.agent] = job.node;
  }

  // The judge's ruling on a worker's latest result.
  void verdict(const TaskStep& s) {
    auto j = last_job_.find(text_field(s.payload, "producer"));
    const Id parent = j != last_job_.end() ? j->second : TreeBuilder::kRoot;
    const json& v = field(s.payload, "verdict");
    const std::string status = text_field(v, "status");
    TaskTree n;
    n.kind = "verdict";
    n.agent = s.agent;
    n.label = s.agent + ": " + (status.empty() ? "verdict" : status);
    if (const std::string why = text_field(v, "error_information"); !why.empty())
      n.label += " — " + short_text(why, 80);
    if (status == "error") n.status = "rejected";
    const Id id = b_.add(parent, std::move(n));
    b_.charge(id, s);
  }

  void label_job(Job& job) {
    TaskTree& n = b_.node(job.node);
    n.label = job.id;
    n.key = job.id;
    n.after = job.after;
    if (!job.workers.empty()) {
      n.label += " → ";
      for (size_t i = 0; i < job.workers.size(); ++i) n.label += (i ? ", " : "") + job.workers[i];
      n.agent = job.workers.back();
    }
    if (!job.description.empty()) n.label += ": " + short_text(job.description, 60);
    if (!job.after.empty()) {
      n.label += " (after ";
      for (size_t i = 0; i < job.after.size(); ++i) n.label += (i ? ", " : "") + job.after[i];
      n.label += ")";
    }
    if (job.attempts > 1) n.label += ", " + std::to_string(job.attempts) + " attempts";
    if (job.attempts == 0) n.status = "not run";
  }

  TreeBuilder b_;
  Id plan_ = TreeBuilder::kRoot;
  std::map<std::string, Job> jobs_;           // by subtask id
  std::map<std::string, int64_t> requested_;  // a worker's request not answered yet: when
  std::map<std::string, Id> last_job_;        // the subtask each worker last answered
};

}  // namespace

TaskTree effgen_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) {
  return EffgenTree(task).build(steps);
}

}  // namespace kaisha::strategy
