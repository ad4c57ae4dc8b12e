#include "runtime/cluster/admission.hpp"

namespace kaisha::cluster {

namespace {

// A listed address with port 0: its real port is only known once bound.
bool dynamic_port(const std::string& address) {
  return address.size() > 2 && address.compare(address.size() - 2, 2, ":0") == 0;
}

}  // namespace

std::string Admission::sending_node(const std::string& from_node, const std::string& authenticated_node,
                                    bool curve) const {
  if (curve) return authenticated_node;  // the gateway checked from_node against it
  return config_.find(from_node) ? from_node : std::string();
}

Result<msg::NodeInfo> Admission::member_info(const msg::NodeInfo& claimed, const msg::NodeInfo* known, bool direct,
                                             bool* overridden) const {
  if (overridden) *overridden = false;
  const NodeConfig* listed = config_.find(claimed.name);
  if (!listed) return Error{"unlisted_node", "node '" + claimed.name + "' is not listed in " + config_.source};
  msg::NodeInfo info = claimed;
  info.public_key = listed->public_key;
  info.capabilities = listed->capabilities;
  if (!dynamic_port(listed->advertise)) {
    info.endpoint = listed->advertise;
  } else if (!direct && known && !known->endpoint.empty()) {
    info.endpoint = known->endpoint;  // only the node itself moves its port
  }
  if (overridden) {
    const auto& a = claimed.capabilities;
    const auto& b = info.capabilities;
    *overridden = info.endpoint != claimed.endpoint || info.public_key != claimed.public_key || a.models != b.models ||
                  a.tags != b.tags || a.resource_units != b.resource_units || a.ceo != b.ceo;
  }
  return info;
}

bool Admission::may_direct_agents(const std::string& node) const {
  const NodeConfig* n = config_.find(node);
  return n && n->capabilities.ceo;
}

bool Admission::is_operator(const std::string& key) const {
  if (key.empty()) return false;
  for (const auto& k : config_.operator_keys)
    if (k == key) return true;
  return false;
}

bool Admission::may_reload(const std::string& key, bool curve) const { return !curve || is_operator(key); }

bool Admission::may_cancel(const std::string& key, const std::string& owner_key) const {
  return key == owner_key || is_operator(key);
}

std::string Admission::client_name_refusal(const std::string& name) const {
  if (name.empty()) return "a client must name itself";
  if (config_.find(name)) return "'" + name + "' is the name of a node";
  if (name.rfind("seed:", 0) == 0) return "'" + name + "' is reserved for a node's own connections";
  return {};
}

}  // namespace kaisha::cluster
