#include "cluster/company_node.hpp"

#include <chrono>

#include "actors/charged_call.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cluster {

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
    (void)node_.send(client, msg::wrap(e, to, from, node_.next_id(), correlation, e.task_id));
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

Result<std::unique_ptr<CompanyNode>> CompanyNode::start(ClusterNode& node, actors::RuntimeOptions ro, bool rehire,
                                                        std::shared_ptr<company::ProgressSink> local_progress,
                                                        size_t max_waiting_tasks) {
  std::unique_ptr<CompanyNode> c(new CompanyNode());
  c->node_ = &node;
  c->max_waiting_ = max_waiting_tasks;
  c->forwarder_ = std::make_shared<Forwarder>(node, std::move(local_progress));
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
  node.handle(msg::SubmitTask::kType, [raw](const msg::Envelope& env) { raw->on_submit(env); });
  std::weak_ptr<ClusterPlacer> weak = c->placer_;
  const std::string session = c->runtime_->session_id();
  node.set_status_extra([weak, session] {
    auto p = weak.lock();
    if (!p) return json::object();
    return json{{"session", session}, {"agents", p->agents()}, {"resources", p->resources()}};
  });
  c->worker_ = std::thread([raw] { raw->run_jobs(); });
  return c;
}

CompanyNode::~CompanyNode() {
  node_->handle(msg::SubmitTask::kType, [](const msg::Envelope&) {});
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
  runtime_.reset();
}

void CompanyNode::on_submit(const msg::Envelope& env) {
  auto task = msg::unwrap<msg::SubmitTask>(env);
  if (!task.ok()) return;
  if (Status s = node_->connect_client(env.from.node, task->reply_endpoint, task->reply_public_key); !s.ok()) return;
  if (task->input.empty()) {
    (void)node_->send(env.from.node, msg::wrap(msg::RequestFailed{"usage", "the task is empty"},
                                               {node_->name(), "CEO"}, env.from, node_->next_id(), env.id));
    return;
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    if (jobs_.size() < max_waiting_) {
      jobs_.push_back(Job{env.from.node, env.id, env.from, {node_->name(), "CEO"}, task->input});
      cv_.notify_all();
      return;
    }
  }
  // Refused, not queued: a client that submits faster than tasks finish
  // would grow the queue (and its inputs) without end.
  (void)node_->send(env.from.node,
                    msg::wrap(msg::RequestFailed{"busy", std::to_string(max_waiting_) +
                                                             " submitted tasks are already waiting (cluster.max_waiting_tasks);"
                                                             " submit again when one has finished"},
                              {node_->name(), "CEO"}, env.from, node_->next_id(), env.id));
}

void CompanyNode::run_jobs() {
  for (;;) {
    Job job;
    std::string task_id;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      running_task_ = task_id = store::JournalStore::make_id("t");
    }
    forwarder_->target(job.client, job.request_id, job.from, job.to);
    msg::TaskResult r = runtime_->run_task(job.input, task_id);
    {
      std::lock_guard<std::mutex> g(mu_);
      running_task_.clear();
    }
    // The ledgers after the task, as `kaisha run` prints them.
    msg::ProgressEvent ledgers;
    ledgers.session_id = runtime_->session_id();
    ledgers.task_id = r.task_id;
    ledgers.agent = "CEO";
    ledgers.kind = "ledgers";
    ledgers.data = runtime_->budget();
    ledgers.at_ms = wall_ms();
    (void)node_->send(job.client, msg::wrap(ledgers, job.to, job.from, node_->next_id(), job.request_id, r.task_id));
    forwarder_->target("", "", {}, {});
    (void)node_->send(job.client, msg::wrap(r, job.to, job.from, node_->next_id(), job.request_id, r.task_id));
  }
}

}  // namespace kaisha::cluster
