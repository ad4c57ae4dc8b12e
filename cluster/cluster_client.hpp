// ClusterClient: how `kaisha submit` and `kaisha cluster status` talk to a
// running cluster. It is a short-lived gateway of its own (name
// "client-<pid>-<n>") that connects to one node, sends a request carrying its
// own endpoint, and reads the answers the node sends back to it.
//
// With CURVE, the client needs a key pair whose public key the cluster
// authorises (cluster.authorised_keys) and the node's public key; the node's
// answers reach the client over a connection the client authorises in turn.
//
// cancel() may be called from another thread while submit() waits (Ctrl-C
// in `kaisha submit`): it names the running submit's task, or the submit
// itself while the task is still queued.
//
// A request never outlives the node it went to: when the connection to the
// node closes (it stopped or crashed) or stops answering ZMTP heartbeats,
// the wait ends at once with "node_gone". A CEO node still starting answers
// a submit with "starting"; submit() then tries again until its timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "transport/gateway.hpp"

namespace kaisha::cluster {

struct ClientOptions {
  std::string address;                     // tcp://host:port of a node (host:port is accepted too)
  std::string bind = "tcp://127.0.0.1:0";  // where answers come back
  std::string secret_key;                  // Z85; "" = plaintext (loopback only)
  std::string public_key;
  std::string server_key;                    // the node's public key, with CURVE
  std::vector<std::string> authorised_keys;  // nodes allowed to answer, with CURVE
  size_t max_frame_bytes = 16u << 20;        // as the cluster's (cluster.max_frame_bytes)
  int heartbeat_ms = 1000;                   // how often the node's liveness is checked
};

class ClusterClient {
 public:
  static Result<std::unique_ptr<ClusterClient>> connect(ClientOptions options);
  ~ClusterClient();

  // Runs `input` on the cluster's CEO; `progress` sees each event as it
  // arrives. Fails with "timeout" when no event arrives for `idle_timeout`.
  Result<msg::TaskResult> submit(const std::string& input,
                                 const std::function<void(const msg::ProgressEvent&)>& progress,
                                 std::chrono::milliseconds idle_timeout);

  // The node's status JSON (see ClusterNode::status()).
  Result<json> status(std::chrono::milliseconds timeout);

  // Asks the node to re-read cluster.yaml (an operator key's right). The
  // result says what changed, or why the file was not applied.
  Result<msg::ReloadResult> reload(std::chrono::milliseconds timeout);

  // Cancels task `task_id` (kaisha cancel --task), or with "" the task of
  // this client's running submit(). Errors: "nothing_to_cancel", and the
  // node's refusals ("forbidden" for another key's task, "unknown_task").
  Result<msg::CancelResult> cancel(const std::string& task_id, const std::string& reason,
                                   std::chrono::milliseconds timeout);

 private:
  ClusterClient() = default;
  Result<msg::Envelope> next(const std::string& correlation, std::chrono::milliseconds timeout);
  std::string next_request_id();

  ClientOptions options_;
  std::string name_;
  std::string endpoint_;
  transport::Gateway gateway_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<msg::Envelope> inbox_;
  std::string gone_;                 // why the node's connection closed; "" while it holds
  std::string submit_id_, task_id_;  // of the running submit(); task_id_ once an event named it
  uint64_t seq_ = 0;                 // guarded by mu_
};

}  // namespace kaisha::cluster
