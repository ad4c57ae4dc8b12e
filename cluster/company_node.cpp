#include "cluster/company_node.hpp"

#include <chrono>
#include <optional>

#include "actors/strategy_kit/charged_call.hpp"
#include "cluster/cluster_placer.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cluster {

namespace {
// Cancels waiting for the canceller thread; more are answered "busy".
constexpr size_t kMaxCancels = 16;
}  // namespace

// Sends each progress event to the client whose task is running (and to the
// local sink), so `kaisha submit` streams the same events `kaisha run` prints.
class CompanyNode::Forwarder : public company::ProgressSink {
 public:
  Forwarder(ClusterNode& node, std::shared_ptr<company::ProgressSink> local) : node_(node), local_(std::move(local)) {}

  void emit(const msg::ProgressEvent& e) override {
    if (local_ && local_->listening()) local_->emit(e);
    std::string client, correlation;
    msg::AgentRef from, to;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (client_.empty()) return;
      client = client_;
      correlation = correlation_;
      from = from_;
      to = to_;
    }
    if (!e.node.empty()) {
      (void)node_.send(client, msg::wrap(e, to, from, node_.next_id(), correlation, e.task_id));
      return;
    }
    msg::ProgressEvent here = e;  // the client learns which node reported it
    here.node = node_.name();
    (void)node_.send(client, msg::wrap(here, to, from, node_.next_id(), correlation, e.task_id));
  }
  bool listening() const override {
    std::lock_guard<std::mutex> g(mu_);
    return !client_.empty() || (local_ && local_->listening());
  }
  void target(const std::string& client, const std::string& correlation, msg::AgentRef from, msg::AgentRef to) {
    std::lock_guard<std::mutex> g(mu_);
    client_ = client;
    correlation_ = correlation;
    from_ = std::move(from);
    to_ = std::move(to);
  }

 private:
  ClusterNode& node_;
  std::shared_ptr<company::ProgressSink> local_;
  mutable std::mutex mu_;
  std::string client_, correlation_;
  msg::AgentRef from_, to_;
};

class CompanyNode::TaskStates {
 public:
  void set(const std::string& task, const std::string& state) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [id, st] : latest_)
      if (id == task) {
        st = state;
        return;
      }
    latest_.emplace_back(task, state);
    if (latest_.size() > kKept) latest_.pop_front();
  }
  bool has(const std::string& task) const {
    std::lock_guard<std::mutex> g(mu_);
    for (const auto& entry : latest_)
      if (entry.first == task) return true;
    return false;
  }
  json to_json() const {
    std::lock_guard<std::mutex> g(mu_);
    json out = json::array();
    for (const auto& [id, st] : latest_) out.push_back({{"task", id}, {"state", st}});
    return out;
  }

 private:
  static constexpr size_t kKept = 32;
  mutable std::mutex mu_;
  std::deque<std::pair<std::string, std::string>> latest_;
};

Result<std::unique_ptr<CompanyNode>> CompanyNode::start(ClusterNode& node, actors::RuntimeOptions ro, bool rehire,
                                                        std::shared_ptr<company::ProgressSink> local_progress,
                                                        size_t max_waiting_tasks) {
  std::unique_ptr<CompanyNode> c(new CompanyNode());
  c->node_ = &node;
  c->max_waiting_ = max_waiting_tasks;
  c->forwarder_ = std::make_shared<Forwarder>(node, std::move(local_progress));
  c->states_ = std::make_shared<TaskStates>();
  PlacerOptions po;
  po.rehire = rehire;
  po.ask_timeout_ms = actors::model_call_timeout(ro.config).count();
  po.progress = c->forwarder_;
  c->placer_ = ClusterPlacer::create(node, po);
  ro.placer = c->placer_;
  ro.progress = c->forwarder_;
  auto rt = actors::CompanyRuntime::start(std::move(ro));
  if (!rt.ok()) return rt.error();
  c->runtime_ = std::move(rt).value();
  c->placer_->journal_to(c->runtime_->session_id());
  CompanyNode* raw = c.get();
  node.handle(msg::SubmitTask::kType,
              ClusterNode::SenderHandler(
                  [raw](const msg::Envelope& env, const transport::Sender& s) { raw->on_submit(env, s); }));
  node.handle(msg::CancelTask::kType,
              ClusterNode::SenderHandler(
                  [raw](const msg::Envelope& env, const transport::Sender& s) { raw->on_cancel(env, s); }));
  std::weak_ptr<ClusterPlacer> weak = c->placer_;
  const std::string session = c->runtime_->session_id();
  node.set_status_extra([weak, session, states = c->states_] {
    auto p = weak.lock();
    if (!p) return json::object();
    return json{
        {"session", session}, {"agents", p->agents()}, {"resources", p->resources()}, {"tasks", states->to_json()}};
  });
  c->worker_ = std::thread([raw] { raw->run_jobs(); });
  c->canceller_ = std::thread([raw] { raw->run_cancels(); });
  return c;
}

CompanyNode::~CompanyNode() {
  node_->handle(msg::SubmitTask::kType, [](const msg::Envelope&) {});
  node_->handle(msg::CancelTask::kType, [](const msg::Envelope&) {});
  node_->set_status_extra(nullptr);
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  // A running task would hold the join until it ends (model calls can take
  // minutes): cancel it, so the node stops at once and journals it canceled.
  // Retried briefly: a task picked up a moment ago may not run yet.
  for (int i = 0; i < 200; ++i) {
    std::string running;
    {
      std::lock_guard<std::mutex> g(mu_);
      running = running_task_;
    }
    if (running.empty() || runtime_->cancel(running, "the CEO node is stopping")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (worker_.joinable()) worker_.join();
  if (canceller_.joinable()) canceller_.join();
  runtime_.reset();
}

void CompanyNode::on_submit(const msg::Envelope& env, const transport::Sender& sender) {
  auto task = msg::unwrap<msg::SubmitTask>(env);
  if (!task.ok()) return;
  if (Status s = node_->connect_client(env.from.node, task->reply_endpoint, task->reply_public_key); !s.ok()) return;
  if (task->input.empty()) {
    (void)node_->send(env.from.node, msg::wrap(msg::RequestFailed{"usage", "the task is empty"}, {node_->name(), "CEO"},
                                               env.from, node_->next_id(), env.id));
    return;
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    if (jobs_.size() < max_waiting_) {
      jobs_.push_back(Job{env.from.node,
                          env.id,
                          env.from,
                          {node_->name(), "CEO"},
                          task->input,
                          store::JournalStore::make_id("t"),
                          sender.key});
      states_->set(jobs_.back().task_id, "queued");
      cv_.notify_all();
      return;
    }
  }
  // Refused, not queued: a client that submits faster than tasks finish
  // would grow the queue (and its inputs) without end.
  (void)node_->send(
      env.from.node,
      msg::wrap(msg::RequestFailed{"busy", std::to_string(max_waiting_) +
                                               " submitted tasks are already waiting (cluster.max_waiting_tasks);"
                                               " submit again when one has finished"},
                {node_->name(), "CEO"}, env.from, node_->next_id(), env.id));
}

bool CompanyNode::wait_for_members(std::chrono::milliseconds cap) {
  const auto until = std::chrono::steady_clock::now() + cap;
  for (;;) {
    size_t alive = 0;
    for (const auto& m : node_->members()) alive += m.state == MemberState::alive;
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (stopping_) return false;
      if (alive >= node_->options().cluster.nodes.size() || std::chrono::steady_clock::now() >= until) return true;
      cv_.wait_for(lk, std::chrono::milliseconds(50));
    }
  }
}

void CompanyNode::run_jobs() {
  // Tasks a killed CEO node left run first; their clients are gone, so their
  // results go to the journal only. The agents they hired are placed again
  // on the nodes serving their models: those are waited for (as long as
  // failure detection would take to call them down).
  const std::vector<std::string> left = runtime_->interrupted_tasks();
  if (!left.empty() && !wait_for_members(std::chrono::seconds(10))) return;
  for (const std::string& id : left) {
    {
      std::lock_guard<std::mutex> g(mu_);
      if (stopping_) return;
      running_task_ = id;
    }
    states_->set(id, "resuming");
    auto r = runtime_->resume_interrupted(id);
    const bool ok = r.ok() && !r->empty() && r->front().ok;
    states_->set(id, ok ? "done" : "failed");
    std::lock_guard<std::mutex> g(mu_);
    running_task_.clear();
  }
  for (;;) {
    Job job;
    std::string task_id;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      running_task_ = task_id = job.task_id;
      running_owner_ = job.owner_key;
      running_request_ = job.request_id;
    }
    forwarder_->target(job.client, job.request_id, job.from, job.to);
    states_->set(task_id, "running");
    msg::TaskResult r = runtime_->run_task(job.input, task_id);
    states_->set(task_id, r.ok ? "done" : r.canceled ? "canceled" : "failed");
    {
      std::lock_guard<std::mutex> g(mu_);
      running_task_.clear();
      running_owner_.clear();
      running_request_.clear();
    }
    // The ledgers after the task, as `kaisha run` prints them.
    msg::ProgressEvent ledgers;
    ledgers.session_id = runtime_->session_id();
    ledgers.task_id = r.task_id;
    ledgers.agent = "CEO";
    ledgers.kind = msg::EventKind::ledgers;
    ledgers.node = node_->name();
    ledgers.data = runtime_->budget();
    ledgers.at_ms = wall_ms();
    forwarder_->target("", "", {}, {});
    if (job.client.empty()) continue;  // submitted on this node: nobody to answer
    (void)node_->send(job.client, msg::wrap(ledgers, job.to, job.from, node_->next_id(), job.request_id, r.task_id));
    (void)node_->send(job.client, msg::wrap(r, job.to, job.from, node_->next_id(), job.request_id, r.task_id));
  }
}

Result<std::string> CompanyNode::submit(const std::string& input) {
  if (input.find_first_not_of(" \t\r\n") == std::string::npos) return Error{"usage", "the task is empty"};
  std::lock_guard<std::mutex> g(mu_);
  if (jobs_.size() >= max_waiting_)
    return Error{"busy", std::to_string(max_waiting_) +
                             " submitted tasks are already waiting (cluster.max_waiting_tasks);"
                             " submit again when one has finished"};
  Job job;
  job.to = {node_->name(), "CEO"};
  job.input = input;
  job.task_id = store::JournalStore::make_id("t");
  job.owner_key = kLocalOwner;
  jobs_.push_back(std::move(job));
  states_->set(jobs_.back().task_id, "queued");
  cv_.notify_all();
  return jobs_.back().task_id;
}

Status CompanyNode::cancel(const std::string& task_id, const std::string& why) {
  Job dropped;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!task_id.empty() && running_task_ == task_id) {
      if (cancels_.size() >= kMaxCancels) return Error{"busy", "too many cancels waiting; try again"};
      cancels_.push_back(Cancel{task_id, why, "", {}});
      cv_.notify_all();
      return Status::Ok();
    }
    auto it = jobs_.begin();
    while (it != jobs_.end() && it->task_id != task_id) ++it;
    if (it == jobs_.end())
      return Error{"unknown_task", "task " + task_id + " is neither queued nor running on the CEO node"};
    dropped = std::move(*it);
    jobs_.erase(it);
  }
  states_->set(task_id, "canceled");
  if (!dropped.client.empty()) {  // a client's task: it is told, as when it cancels it itself
    msg::TaskResult r;
    r.task_id = task_id;
    r.ok = false;
    r.canceled = true;
    r.error = why + " (before it started)";
    (void)node_->send(dropped.client,
                      msg::wrap(r, dropped.to, dropped.from, node_->next_id(), dropped.request_id, r.task_id));
  }
  return Status::Ok();
}

bool CompanyNode::holds_task(const std::string& task_id) const { return states_->has(task_id); }

void CompanyNode::answer(const msg::Envelope& request, const std::string& code, const std::string& message) {
  (void)node_->send(request.from.node, msg::wrap(msg::RequestFailed{code, message}, {node_->name(), "CEO"},
                                                 request.from, node_->next_id(), request.id));
}

void CompanyNode::on_cancel(const msg::Envelope& env, const transport::Sender& sender) {
  auto req = msg::unwrap<msg::CancelTask>(env);
  if (!req.ok()) return;
  if (Status s = node_->connect_client(env.from.node, req->reply_endpoint, req->reply_public_key); !s.ok()) return;
  const auto admission = node_->admission();
  const std::string why = "canceled by " + env.from.node + (req->reason.empty() ? std::string() : ": " + req->reason);
  auto names = [&](const std::string& task, const std::string& submit) {
    return (!req->task_id.empty() && req->task_id == task) || (!req->submit_id.empty() && req->submit_id == submit);
  };
  const std::string named = req->task_id.empty() ? "the task of request " + req->submit_id : "task " + req->task_id;
  std::optional<Job> dropped;
  {
    std::lock_guard<std::mutex> g(mu_);
    std::string owner;
    bool found = false, running = false;
    auto queued = jobs_.end();
    if (!running_task_.empty() && names(running_task_, running_request_)) {
      found = running = true;
      owner = running_owner_;
    } else {
      for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
        if (names(it->task_id, it->request_id)) {
          found = true;
          owner = it->owner_key;
          queued = it;
          break;
        }
    }
    if (!found) return answer(env, "unknown_task", named + " is neither queued nor running on the CEO node");
    if (!admission->may_cancel(sender.key, owner)) {
      node_->refuse("not_task_owner", env, named + " was submitted with another key");
      return answer(env, "forbidden", named + " was submitted with another key; a client cancels only its own tasks");
    }
    if (running) {
      if (cancels_.size() >= kMaxCancels) return answer(env, "busy", "too many cancels waiting; try again");
      cancels_.push_back(Cancel{running_task_, why, env.from.node, env});
      cv_.notify_all();
      return;
    }
    dropped = std::move(*queued);
    jobs_.erase(queued);
  }
  // Never started: nothing was journaled or charged; its client is told.
  states_->set(dropped->task_id, "canceled");
  msg::TaskResult r;
  r.task_id = dropped->task_id;
  r.ok = false;
  r.canceled = true;
  r.error = why + " (before it started)";
  if (!dropped->client.empty())
    (void)node_->send(dropped->client,
                      msg::wrap(r, dropped->to, dropped->from, node_->next_id(), dropped->request_id, r.task_id));
  (void)node_->send(env.from.node, msg::wrap(msg::CancelResult{r.task_id, "dropped"}, {node_->name(), "CEO"}, env.from,
                                             node_->next_id(), env.id));
}

void CompanyNode::run_cancels() {
  for (;;) {
    Cancel c;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stopping_ || !cancels_.empty(); });
      if (stopping_) return;
      c = std::move(cancels_.front());
      cancels_.pop_front();
    }
    // Between dequeue and run_task the runtime does not know the task yet:
    // retried briefly while it is still the running one.
    bool done = false;
    for (int i = 0; i < 400 && !done; ++i) {
      done = runtime_->cancel(c.task_id, c.why);
      if (done) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::lock_guard<std::mutex> g(mu_);
      if (stopping_ || running_task_ != c.task_id) break;
    }
    if (c.client.empty()) continue;  // asked on this node
    if (done)
      (void)node_->send(c.client, msg::wrap(msg::CancelResult{c.task_id, "canceled"}, {node_->name(), "CEO"},
                                            c.request.from, node_->next_id(), c.request.id));
    else
      answer(c.request, "unknown_task", "task " + c.task_id + " ended before it could be canceled");
  }
}

}  // namespace kaisha::cluster
