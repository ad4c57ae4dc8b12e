// Admission: who may do what in a cluster, decided by cluster.yaml alone.
//
// - Only the nodes listed there are members. What a member is (its key,
//   address and capabilities) is what the file says; what a node claims or
//   gossips about itself or others never changes it. Only the incarnation
//   and the state come from the wire.
// - An inbound envelope comes from a node only when the transport tied it to
//   that node: with CURVE, the node the sender's authenticated key is listed
//   for; in plaintext (loopback only, nothing authenticated), the listed
//   node it names. Everything else comes from a client.
// - Clients (the keys of `cluster.authorised_keys`) may submit tasks, ask
//   for status and cancel the tasks they submitted, nothing else; only the
//   CEO node may spawn, stop or ask employees on another node.
// - Operators (the keys of `cluster.operator_keys`) may ask for status, have
//   a node re-read cluster.yaml, and cancel any task; they submit nothing.
// - Without CURVE (plaintext, loopback only) nothing is authenticated: any
//   local process may do what clients and operators do.
// Immutable after construction, so it may be read from any thread; a reload
// replaces it whole.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "runtime/cluster/cluster_config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/cluster_messages.hpp"

namespace kaisha::cluster {

class Admission {
 public:
  explicit Admission(ClusterConfig config) : config_(std::move(config)), max_gossip_(config_.nodes.size()) {}
  // After a reload: `before` is the admission the new file replaces.
  Admission(ClusterConfig config, const Admission& before)
      : config_(std::move(config)), max_gossip_(std::max(config_.nodes.size(), before.max_gossip())) {}

  // The listed node an envelope claiming `from_node` comes from, or "" for a
  // client. `authenticated_node` is the node the transport bound the
  // sender's key to ("" for a client key); `curve` says whether keys are in
  // use at all.
  std::string sending_node(const std::string& from_node, const std::string& authenticated_node, bool curve) const;

  // What this node records of `claimed` (a join, a heartbeat's sender, or a
  // member it gossips): the listed node's key, capabilities and address,
  // with the claimed incarnation and state. For a node listed with port 0
  // (loopback tests), the address is the one the node reports itself
  // (`direct`), or gossip's until it does; `known` is what is recorded now.
  // An Error with code "unlisted_node" for a name the file does not list.
  // `overridden` (optional) is set when the claim disagreed with the file.
  Result<msg::NodeInfo> member_info(const msg::NodeInfo& claimed, const msg::NodeInfo* known, bool direct,
                                    bool* overridden = nullptr) const;

  // Whether `node` may spawn, stop and ask employees here: the CEO node only.
  bool may_direct_agents(const std::string& node) const;

  // Whether the holder of `key` may have this node re-read cluster.yaml:
  // an operator key, or anyone in plaintext.
  bool may_reload(const std::string& key, bool curve) const;

  // Whether the holder of `key` may cancel a task submitted with
  // `owner_key`: the same key, or an operator key.
  bool may_cancel(const std::string& key, const std::string& owner_key) const;

  bool is_operator(const std::string& key) const;

  // Most members one heartbeat may carry: every listed node, or as many as
  // an earlier file of this run listed (a node not reloaded yet still
  // gossips the nodes a reload removed).
  size_t max_gossip() const { return max_gossip_; }

  // Why a client may not go by `name` ("" if it may): a listed node's name,
  // or one this node uses for its own connections ("seed:...").
  std::string client_name_refusal(const std::string& name) const;

  const ClusterConfig& config() const { return config_; }

 private:
  ClusterConfig config_;
  size_t max_gossip_;
};

}  // namespace kaisha::cluster
