// CompanyNode: the company on its CEO node. It starts the CompanyRuntime
// (CEO, ledgers, journal: the expense ledger is authoritative here) with a
// ClusterPlacer, so employees land on the nodes placement picks, and serves
// `kaisha submit`: submit_task envelopes are queued and run one at a time in
// one session; the task's progress events stream back to the submitting
// client as they happen, correlated to its request, then its TaskResult.
// At most `max_waiting_tasks` submits wait behind the running task: one more
// is answered at once with a request_failed "busy" naming the limit.
// It also adds the employees, resource use and the latest tasks (queued,
// running, done, failed, canceled) to the node's status.
//
// Cancel. A cancel_task names a queued task (by its submit) or the running
// one. Only the key that submitted the task may cancel it (or an operator
// key: Admission::may_cancel); another key is refused, counted
// ("not_task_owner") and told so. A queued task is dropped and its client
// answered at once; the running one is stopped through
// CompanyRuntime::cancel (the journal records it canceled, no model call
// starts after) on a thread of its own, since that call blocks.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/company/company_runtime.hpp"
#include "cluster/cluster_node.hpp"

namespace kaisha::cluster {

// cluster_placer.hpp: declared only, so that CAF stays out of this header,
// which the CLI (kaisha node) includes.
class ClusterPlacer;

class CompanyNode {
 public:
  // `node` must outlive the CompanyNode. `local_progress` (may be null) also
  // sees every event, e.g. the node's own console.
  static Result<std::unique_ptr<CompanyNode>> start(ClusterNode& node, actors::RuntimeOptions runtime, bool rehire,
                                                    std::shared_ptr<company::ProgressSink> local_progress,
                                                    size_t max_waiting_tasks);
  ~CompanyNode();

  actors::CompanyRuntime& runtime() { return *runtime_; }
  ClusterPlacer& placer() { return *placer_; }
  ClusterNode& node() { return *node_; }

  // For the node's own dashboard (kaisha node --http): a task queued as a
  // `kaisha submit` is, with no client to stream to (its events go to the
  // local progress sink); refused "busy" past max_waiting_tasks. Only an
  // operator key may cancel it from a client.
  Result<std::string> submit(const std::string& input);
  // Cancels a queued task (dropped before anything is journaled) or the
  // running one (stopped on the canceller thread, journaled canceled), as an
  // operator's cancel_task does; "unknown_task" when it is neither.
  Status cancel(const std::string& task_id, const std::string& why);
  // Whether the task is queued, running or among the latest ended ones.
  bool holds_task(const std::string& task_id) const;

 private:
  class Forwarder;
  struct Job {
    std::string client;
    std::string request_id;
    msg::AgentRef from, to;
    std::string input;
    std::string task_id;    // chosen when queued, so a cancel can name it
    std::string owner_key;  // the key that submitted it ("" in plaintext)
  };
  // The owner of a task submitted on the node itself: no key equals it.
  static constexpr const char* kLocalOwner = "(this node)";
  // A cancel of the running task, waiting for the canceller thread.
  struct Cancel {
    std::string task_id, why;
    std::string client;  // who asked, and the request to answer ("": the node itself)
    msg::Envelope request;
  };
  // The latest tasks and their states, for status (shared with its callback).
  class TaskStates;
  CompanyNode() = default;
  void on_submit(const msg::Envelope& env, const transport::Sender& sender);
  void on_cancel(const msg::Envelope& env, const transport::Sender& sender);
  void run_jobs();
  // Waits up to `cap` (or until the node stops) for every node of the
  // cluster file to be heard from; false if the node is stopping.
  bool wait_for_members(std::chrono::milliseconds cap);
  void run_cancels();
  void answer(const msg::Envelope& request, const std::string& code, const std::string& message);

  ClusterNode* node_ = nullptr;
  std::shared_ptr<Forwarder> forwarder_;
  std::shared_ptr<TaskStates> states_;
  std::shared_ptr<ClusterPlacer> placer_;
  std::unique_ptr<actors::CompanyRuntime> runtime_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  size_t max_waiting_ = 0;
  bool stopping_ = false;
  std::string running_task_;  // the task run_jobs() is running, "" between tasks
  std::string running_owner_, running_request_;
  std::deque<Cancel> cancels_;  // bounded: kMaxCancels
  std::thread worker_;
  std::thread canceller_;
};

}  // namespace kaisha::cluster
