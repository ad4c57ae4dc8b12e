// CompanyNode: the company on its CEO node. It starts the CompanyRuntime
// (CEO, ledgers, journal: the expense ledger is authoritative here) with a
// ClusterPlacer, so employees land on the nodes placement picks, and serves
// `kaisha submit`: submit_task envelopes are queued and run one at a time in
// one session; the task's progress events stream back to the submitting
// client as they happen, correlated to its request, then its TaskResult.
// At most `max_waiting_tasks` submits wait behind the running task: one more
// is answered at once with a request_failed "busy" naming the limit.
// It also adds the employees and resource use to the node's status.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/company_runtime.hpp"
#include "cluster/cluster_node.hpp"
#include "cluster/cluster_placer.hpp"

namespace kaisha::cluster {

class CompanyNode {
 public:
  // `node` must outlive the CompanyNode. `local_progress` (may be null) also
  // sees every event, e.g. the node's own console.
  static Result<std::unique_ptr<CompanyNode>> start(ClusterNode& node, actors::RuntimeOptions runtime,
                                                    bool rehire, std::shared_ptr<company::ProgressSink> local_progress,
                                                    size_t max_waiting_tasks);
  ~CompanyNode();

  actors::CompanyRuntime& runtime() { return *runtime_; }
  ClusterPlacer& placer() { return *placer_; }

 private:
  class Forwarder;
  struct Job {
    std::string client;
    std::string request_id;
    msg::AgentRef from, to;
    std::string input;
  };
  CompanyNode() = default;
  void on_submit(const msg::Envelope& env);
  void run_jobs();

  ClusterNode* node_ = nullptr;
  std::shared_ptr<Forwarder> forwarder_;
  std::shared_ptr<ClusterPlacer> placer_;
  std::unique_ptr<actors::CompanyRuntime> runtime_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  size_t max_waiting_ = 0;
  bool stopping_ = false;
  std::string running_task_;  // the task run_jobs() is running, "" between tasks
  std::thread worker_;
};

}  // namespace kaisha::cluster
