#include "runtime/cluster/node_resources.hpp"

#include <sstream>

namespace kaisha::cluster {

namespace {
std::string units(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

void NodeResources::set_capacity(const std::string& node, double u) { capacity_[node] = u; }

double NodeResources::capacity(const std::string& node) const {
  auto it = capacity_.find(node);
  return it == capacity_.end() ? 0 : it->second;
}

double NodeResources::used(const std::string& node) const {
  double sum = 0;
  for (const auto& [agent, h] : holds_)
    if (h.node == node) sum += h.units;
  return sum;
}

Status NodeResources::reserve(const std::string& node, const std::string& agent, double u) {
  if (auto it = holds_.find(agent); it != holds_.end())
    return Error{"placement", "agent '" + agent + "' already holds resource units on node '" + it->second.node + "'"};
  if (u < 0) return Error{"placement", "agent '" + agent + "': negative resource units"};
  const double left = free(node);
  if (u > left + 1e-9)
    return Error{"placement", "node '" + node + "' has " + units(left) + " resource units free, agent '" + agent +
                                  "' needs " + units(u)};
  holds_[agent] = Hold{node, u};
  return Status::Ok();
}

std::optional<std::string> NodeResources::release(const std::string& agent) {
  auto it = holds_.find(agent);
  if (it == holds_.end()) return std::nullopt;
  std::string node = it->second.node;
  holds_.erase(it);
  return node;
}

std::vector<std::string> NodeResources::release_node(const std::string& node) {
  std::vector<std::string> lost;
  for (auto it = holds_.begin(); it != holds_.end();) {
    if (it->second.node == node) {
      lost.push_back(it->first);
      it = holds_.erase(it);
    } else {
      ++it;
    }
  }
  return lost;
}

std::optional<std::string> NodeResources::node_of(const std::string& agent) const {
  auto it = holds_.find(agent);
  if (it == holds_.end()) return std::nullopt;
  return it->second.node;
}

std::vector<std::string> NodeResources::agents_on(const std::string& node) const {
  std::vector<std::string> out;
  for (const auto& [agent, h] : holds_)
    if (h.node == node) out.push_back(agent);
  return out;
}

}  // namespace kaisha::cluster
