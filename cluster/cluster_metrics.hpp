// What a cluster node shows of itself on /metrics, read at each scrape from
// the node: its members by state and how long ago each was last heard from,
// the frames its gateway carried, dropped (by reason, impostors among them)
// and refused, and the client requests it refused by kind. The envelopes it
// sends and reads by type are counted by the node itself
// (NodeOptions::metrics).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_node.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::cluster {

// The frames the node's gateway dropped, by reason (malformed, version,
// oversized, impostor, unauthorised): kaisha_cluster_dropped_frames_total on
// /metrics, and the dashboard's cluster panel.
std::vector<std::pair<std::string, uint64_t>> dropped_frames(const transport::GatewayCounters& c);

// Registers the node's collectors; they report while the returned handles
// live, which must not outlive `node`.
std::vector<std::shared_ptr<void>> cluster_metrics(telemetry::MetricsRegistry& registry, const ClusterNode& node);

}  // namespace kaisha::cluster
