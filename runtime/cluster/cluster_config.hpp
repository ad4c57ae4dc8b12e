// cluster.yaml: one file describing a company spread over several nodes,
// shared by all of them; `kaisha node --name NAME` picks its own entry.
//
//   company: company.yaml        # the kaisha config (CEO model, providers, budget);
//                                # relative paths resolve against this file
//   cluster:
//     seeds: [tcp://10.0.0.1:7101]          # or {address: ..., public_key: ...}
//     heartbeat_ms: 250                     # defaults detect a dead node within 3 s
//     suspect_after_ms: 1000
//     down_after_ms: 2000
//     rehire_lost_agents: true              # re-hire a lost employee elsewhere, retry its ask once
//     allow_plaintext: false                # only with loopback addresses
//     authorised_keys: ["<Z85>", ...]       # clients (kaisha submit); nodes' keys are implied
//     operator_keys: ["<Z85>", ...]         # operators (kaisha cluster reload, cancel any task)
//     max_frame_bytes: 16777216             # largest envelope; a peer sending more is cut off
//     max_clients: 64                       # client connections a node keeps open at once
//     max_waiting_tasks: 64                 # submitted tasks the CEO node queues; more are refused
//   nodes:
//     ceo:    { bind: tcp://10.0.0.1:7101, key_file: ceo.key, public_key: "<Z85>", ceo: true,
//               http: "127.0.0.1:9464" }  # optional: /metrics, and /events on the CEO node
//     gpu1:   { bind: tcp://0.0.0.0:7101, advertise: tcp://10.0.0.2:7101, key_file: gpu1.key,
//               public_key: "<Z85>", models: [llama3.2], tags: [gpu], resource_units: 100 }
//
// Membership is this file: only the nodes listed here may join, each with its
// own key, address and capabilities as written here (what nodes gossip never
// changes them). Public keys are read verbatim, without ${VAR} substitution
// (Z85 keys contain '$', '{' and '}'); `kaisha keygen` prints them quoted.
// A listed port 0 (loopback tests only) means "the port the node reports".
// A key is exactly one identity: a node's, a client's or an operator's; the
// same key in two places is an error.
//
// A running node re-reads this file on SIGHUP or `kaisha cluster reload`
// (config_reload.hpp says what may change without a restart).
//
// Every mistake is an Error (code "config") naming file, line and key, like
// the company config's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/messages/cluster_messages.hpp"

namespace kaisha::cluster {

struct Seed {
  std::string address;     // tcp://host:port of a node's gateway
  std::string public_key;  // its CURVE key; "" = look it up among `nodes` by address
};

// Failure detection: a node not heard from for suspect_after_ms is suspect,
// for down_after_ms is down. Heartbeats go out every heartbeat_ms.
struct Timeouts {
  int64_t heartbeat_ms = 250;
  int64_t suspect_after_ms = 1000;
  int64_t down_after_ms = 2000;
};

struct NodeConfig {
  std::string name;
  std::string bind;        // tcp://address:port for the gateway ROUTER
  std::string advertise;   // what other nodes connect to; defaults to bind
  std::string key_file;    // this node's CURVE key pair (kaisha keygen); "" = plaintext
  std::string public_key;  // its public half, so that others may authorise and reach it
  std::string http;        // HOST:PORT where `kaisha node` serves /metrics (and /events on the CEO node); "" = none
  msg::NodeCapabilities capabilities;
};

constexpr int64_t kMinFrameBytes = 64 * 1024;
constexpr int64_t kMaxFrameBytes = int64_t(1) << 30;

struct ClusterConfig {
  std::string source;          // the file it came from
  std::string company_config;  // resolved path; "" = defaults
  std::vector<Seed> seeds;
  Timeouts timeouts;
  bool rehire_lost_agents = true;
  bool allow_plaintext = false;
  std::vector<std::string> authorised_keys;  // every node's public_key plus client_keys and operator_keys
  std::vector<std::string> client_keys;      // cluster.authorised_keys as written: submit, status, cancel own tasks
  std::vector<std::string> operator_keys;    // cluster.operator_keys: status, reload, cancel any task
  std::vector<NodeConfig> nodes;
  size_t max_frame_bytes = 16u << 20;  // ZMQ_MAXMSGSIZE of every gateway socket
  int max_clients = 64;                // client connections kept open (least recently used closed first)
  size_t max_waiting_tasks = 64;       // submits queued behind the running task; one more is refused

  // The entry for `name`, or an Error listing the names the file knows.
  Result<NodeConfig> node(const std::string& name) const;
  // The node marked `ceo: true`.
  const NodeConfig* ceo_node() const;
  // The listed node named `name`, or null.
  const NodeConfig* find(const std::string& name) const;
  // The public key for a seed: its own, or that of the node advertising it.
  std::string seed_key(const Seed& seed) const;
  // Where a client reaches `node`'s HTTP port: its `http` address, with a
  // wildcard host (0.0.0.0, ::) replaced by the host of its `advertise`
  // address. "" when the node has no `http`.
  std::string http_address(const NodeConfig& node) const;
};

Result<ClusterConfig> parse_cluster_config(const std::string& yaml_text, const std::string& source_name);
Result<ClusterConfig> load_cluster_config(const std::string& path);

}  // namespace kaisha::cluster
