#include "runtime/cluster/placement.hpp"

#include <algorithm>
#include <sstream>

namespace kaisha::cluster {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

bool serves_model(const msg::NodeCapabilities& caps, const std::string& model, const std::string& model_ref) {
  if (caps.models.empty()) return true;
  const size_t colon = model_ref.find(':');
  const std::string bare = colon == std::string::npos ? model_ref : model_ref.substr(colon + 1);
  for (const auto& m : caps.models)
    if ((!model.empty() && m == model) || (!model_ref.empty() && (m == model_ref || m == bare))) return true;
  return false;
}

Result<std::string> place(const PlacementRequest& r, const std::vector<PlacementCandidate>& candidates) {
  const PlacementCandidate* best = nullptr;
  std::string why;
  for (const auto& c : candidates) {
    std::string no;
    if (!c.alive)
      no = "not alive";
    else if (contains(r.exclude, c.node))
      no = "excluded";
    else if (!serves_model(c.capabilities, r.model, r.model_ref))
      no = "does not serve " + r.model;
    else if (c.free_units + 1e-9 < r.units)
      no = number(c.free_units) + " resource units free, " + number(r.units) + " needed";
    else
      for (const auto& t : r.tags)
        if (!contains(c.capabilities.tags, t)) {
          no = "lacks tag '" + t + "'";
          break;
        }
    if (!no.empty()) {
      why += (why.empty() ? "" : "; ") + c.node + ": " + no;
      continue;
    }
    if (!best || c.free_units > best->free_units + 1e-9 ||
        (c.free_units > best->free_units - 1e-9 && c.node < best->node))
      best = &c;
  }
  if (best) return best->node;
  return Error{"placement", "no node can host agent '" + r.agent + "' (model " + r.model + ", " + number(r.units) +
                                " resource units" + (r.tags.empty() ? "" : ", tags required") + ")" +
                                (why.empty() ? ": the cluster has no nodes" : ": " + why)};
}

}  // namespace kaisha::cluster
