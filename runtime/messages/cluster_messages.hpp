// The messages nodes of one company exchange among themselves (membership,
// remote employees) and with the `kaisha submit` / `kaisha cluster status`
// clients. Same rules as agent_messages.hpp: msgpack maps, a type name and a
// version per struct, missing keys keep their defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <msgpack.hpp>

#include "runtime/core/json.hpp"
#include "runtime/core/json_msgpack.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::msg {

// What a node offers to placement: the models it can serve (cost-table
// names or model refs, e.g. what its Ollama has), free-form tags such as
// "gpu", and how many resource units agents may use on it.
struct NodeCapabilities {
  std::vector<std::string> models;  // empty = any model
  std::vector<std::string> tags;
  double resource_units = 100;
  bool ceo = false;  // this node runs the CEO and holds the expense ledger
  MSGPACK_DEFINE_MAP(models, tags, resource_units, ceo)
};

// One member as nodes gossip it. `incarnation` grows with every start of a
// node, so a restarted node is told apart from its previous life.
struct NodeInfo {
  std::string name;
  std::string endpoint;    // where its gateway ROUTER is reachable
  std::string public_key;  // Z85 CURVE key; "" in plaintext clusters
  int64_t incarnation = 0;
  NodeCapabilities capabilities;
  std::string state = "alive";  // alive | suspect | down, as the sender sees it
  MSGPACK_DEFINE_MAP(name, endpoint, public_key, incarnation, capabilities, state)
};

// A new (or restarted) node → a seed: let me in.
struct JoinRequest {
  static constexpr const char* kType = "join_request";
  static constexpr uint32_t kVersion = 1;
  NodeInfo node;
  MSGPACK_DEFINE_MAP(node)
};

// Heartbeat, also the answer to a join: the sender is alive and this is the
// membership it knows (gossip), itself included.
struct Heartbeat {
  static constexpr const char* kType = "heartbeat";
  static constexpr uint32_t kVersion = 1;
  NodeInfo sender;
  std::vector<NodeInfo> members;
  MSGPACK_DEFINE_MAP(sender, members)
};

// CEO node → hosting node: run this employee here (its model calls go
// through the hosting node's model client).
struct SpawnAgent {
  static constexpr const char* kType = "spawn_agent";
  static constexpr uint32_t kVersion = 1;
  AgentSpec spec;
  uint64_t hire = 0;  // which hire of the name this is (the CEO node counts them)
  MSGPACK_DEFINE_MAP(spec, hire)
};

// CEO node → hosting node: stop this employee (fired, or the CEO left).
struct StopAgent {
  static constexpr const char* kType = "stop_agent";
  static constexpr uint32_t kVersion = 1;
  std::string name;
  // Stop only this hire of the name: a late stop of a fired employee must
  // not stop its re-hire. 0 = whichever runs.
  uint64_t hire = 0;
  MSGPACK_DEFINE_MAP(name, hire)
};

// A request that could not be served (unknown agent, unknown type, a
// failure on the serving node); answers any request by correlation.
struct RequestFailed {
  static constexpr const char* kType = "request_failed";
  static constexpr uint32_t kVersion = 1;
  std::string code;  // "unknown_agent", "unsupported", "failed", ...
  std::string message;
  MSGPACK_DEFINE_MAP(code, message)
};

// `kaisha submit` → CEO node: run this task; progress events stream back
// (ProgressEvent envelopes correlated to this request), then a TaskResult.
// The client's own gateway endpoint is where the answers go.
struct SubmitTask {
  static constexpr const char* kType = "submit_task";
  static constexpr uint32_t kVersion = 1;
  std::string input;
  std::string reply_endpoint;
  std::string reply_public_key;
  MSGPACK_DEFINE_MAP(input, reply_endpoint, reply_public_key)
};

// `kaisha cluster status` → any node; answered with ClusterStatus.
struct StatusRequest {
  static constexpr const char* kType = "status_request";
  static constexpr uint32_t kVersion = 1;
  std::string reply_endpoint;
  std::string reply_public_key;
  MSGPACK_DEFINE_MAP(reply_endpoint, reply_public_key)
};

// `kaisha cancel` (or Ctrl-C in `kaisha submit`) → CEO node: stop a task,
// named by its task id or by the id of the submit_task that asked for it
// (a task still queued has no task id yet). Only the key that submitted it
// (or an operator's) may. Answered with CancelResult or RequestFailed.
struct CancelTask {
  static constexpr const char* kType = "cancel_task";
  static constexpr uint32_t kVersion = 1;
  std::string task_id;
  std::string submit_id;
  std::string reason;
  std::string reply_endpoint;
  std::string reply_public_key;
  MSGPACK_DEFINE_MAP(task_id, submit_id, reason, reply_endpoint, reply_public_key)
};

struct CancelResult {
  static constexpr const char* kType = "cancel_result";
  static constexpr uint32_t kVersion = 1;
  std::string task_id;  // "" for a task canceled before it started
  std::string state;    // "canceled" (it was running) | "dropped" (it was queued)
  MSGPACK_DEFINE_MAP(task_id, state)
};

// `kaisha cluster reload` → any node: re-read cluster.yaml. Operators only.
struct ReloadRequest {
  static constexpr const char* kType = "reload_request";
  static constexpr uint32_t kVersion = 1;
  std::string reply_endpoint;
  std::string reply_public_key;
  MSGPACK_DEFINE_MAP(reply_endpoint, reply_public_key)
};

// What the reload changed (ok), or why the file was not applied.
struct ReloadResult {
  static constexpr const char* kType = "reload_result";
  static constexpr uint32_t kVersion = 1;
  bool ok = false;
  std::string error;
  std::vector<std::string> added, removed, rekeyed, changed;
  MSGPACK_DEFINE_MAP(ok, error, added, removed, rekeyed, changed)
};

struct ClusterStatus {
  static constexpr const char* kType = "cluster_status";
  static constexpr uint32_t kVersion = 1;
  json status = json::object();  // {node, members: [{name, state, ..., agents, resource_used}]}
  MSGPACK_DEFINE_MAP(status)
};

}  // namespace kaisha::msg
