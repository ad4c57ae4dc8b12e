// What re-reading cluster.yaml changes in a running node (SIGHUP or `kaisha
// cluster reload`), or why the new file cannot be applied without a restart.
//
// Applied live: nodes added, removed, re-keyed or moved, other nodes'
// capabilities, seeds, client and operator keys, max_clients,
// rehire_lost_agents. Refused (the running membership is kept): a file that
// does not parse, one that no longer lists this node, and changes to what
// the running node was built with: its own entry, which node is the CEO,
// allow_plaintext, max_frame_bytes, the timeouts and the company file.
#pragma once

#include <string>
#include <vector>

#include "runtime/cluster/cluster_config.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::cluster {

struct ConfigChange {
  std::vector<std::string> added;    // listed now and not before: may join
  std::vector<std::string> removed;  // listed before and not now: gone, refused from now on
  std::vector<std::string> rekeyed;  // listed with another public_key: the old key is refused, the node is
                                     // gone until the holder of the new key joins
  std::vector<std::string> changed;  // another address or capabilities
  bool empty() const { return added.empty() && removed.empty() && rekeyed.empty() && changed.empty(); }
};

// The change from `running` to `next` for node `self`, or an Error (code
// "config") naming the file and the key that cannot change live.
Result<ConfigChange> plan_reload(const ClusterConfig& running, const ClusterConfig& next, const std::string& self);

}  // namespace kaisha::cluster
