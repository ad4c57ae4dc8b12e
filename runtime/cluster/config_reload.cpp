#include "runtime/cluster/config_reload.hpp"

namespace kaisha::cluster {

namespace {

bool same_capabilities(const msg::NodeCapabilities& a, const msg::NodeCapabilities& b) {
  return a.models == b.models && a.tags == b.tags && a.resource_units == b.resource_units && a.ceo == b.ceo;
}

}  // namespace

Result<ConfigChange> plan_reload(const ClusterConfig& running, const ClusterConfig& next, const std::string& self) {
  auto restart = [&](const std::string& key, const std::string& what) -> Error {
    return Error{"config", next.source + ": " + key + ": " + what +
                               " cannot change while the node runs; "
                               "restart the node to apply it"};
  };
  const NodeConfig* me = next.find(self);
  if (!me)
    return Error{"config",
                 next.source + ": nodes: this node ('" + self + "') is no longer listed; stop it instead of reloading"};
  const NodeConfig* was = running.find(self);
  if (was) {
    const std::string p = "nodes." + self;
    if (me->bind != was->bind) return restart(p + ".bind", "its own bind address");
    if (me->advertise != was->advertise) return restart(p + ".advertise", "its own advertised address");
    if (me->http != was->http) return restart(p + ".http", "its own HTTP address");
    if (me->key_file != was->key_file || me->public_key != was->public_key)
      return restart(p + ".public_key", "its own key");
    if (!same_capabilities(me->capabilities, was->capabilities)) return restart(p, "its own capabilities");
  }
  const NodeConfig* ceo_now = running.ceo_node();
  const NodeConfig* ceo_next = next.ceo_node();
  if ((ceo_now ? ceo_now->name : "") != (ceo_next ? ceo_next->name : ""))
    return restart("nodes." + (ceo_next ? ceo_next->name : std::string("?")) + ".ceo", "which node runs the CEO");
  if (next.allow_plaintext != running.allow_plaintext) return restart("cluster.allow_plaintext", "plaintext or CURVE");
  if (next.max_frame_bytes != running.max_frame_bytes) return restart("cluster.max_frame_bytes", "the frame limit");
  const Timeouts& a = running.timeouts;
  const Timeouts& b = next.timeouts;
  if (a.heartbeat_ms != b.heartbeat_ms || a.suspect_after_ms != b.suspect_after_ms ||
      a.down_after_ms != b.down_after_ms)
    return restart("cluster.heartbeat_ms", "the failure detector's timing");
  if (next.company_config != running.company_config) return restart("company", "the company file");

  ConfigChange change;
  for (const auto& n : next.nodes) {
    if (n.name == self) continue;
    const NodeConfig* before = running.find(n.name);
    if (!before)
      change.added.push_back(n.name);
    else if (before->public_key != n.public_key)
      change.rekeyed.push_back(n.name);
    else if (before->advertise != n.advertise || !same_capabilities(before->capabilities, n.capabilities))
      change.changed.push_back(n.name);
  }
  for (const auto& n : running.nodes)
    if (n.name != self && !next.find(n.name)) change.removed.push_back(n.name);
  return change;
}

}  // namespace kaisha::cluster
