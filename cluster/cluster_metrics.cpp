#include "cluster/cluster_metrics.hpp"

#include "runtime/core/clock.hpp"

namespace kaisha::cluster {

std::vector<std::pair<std::string, uint64_t>> dropped_frames(const transport::GatewayCounters& c) {
  return {{"malformed", c.dropped_malformed},
          {"version", c.dropped_version},
          {"oversized", c.dropped_oversized},
          {"impostor", c.dropped_impostor},
          {"unauthorised", c.dropped_unauthorised}};
}

std::vector<std::shared_ptr<void>> cluster_metrics(telemetry::MetricsRegistry& r, const ClusterNode& node) {
  using telemetry::MetricType;
  using telemetry::Sample;
  const ClusterNode* n = &node;
  std::vector<std::shared_ptr<void>> out;
  out.push_back(
      r.collector("kaisha_cluster_members", "Members this node knows, by state", MetricType::gauge, {"state"}, [n] {
        std::map<std::string, double> by_state{{"alive", 0}, {"suspect", 0}, {"down", 0}};
        for (const auto& m : n->members()) by_state[to_string(m.state)] += 1;
        std::vector<Sample> v;
        for (const auto& [state, count] : by_state) v.push_back({{state}, count});
        return v;
      }));
  out.push_back(r.collector("kaisha_cluster_heartbeat_age_seconds",
                            "Seconds since this node last heard from each other member", MetricType::gauge, {"node"},
                            [n] {
                              std::vector<Sample> v;
                              const int64_t now = steady_ms();
                              for (const auto& m : n->members()) {
                                if (m.info.name == n->name() || m.last_heard_ms == 0) continue;
                                v.push_back({{m.info.name}, static_cast<double>(now - m.last_heard_ms) / 1000.0});
                              }
                              return v;
                            }));
  out.push_back(r.collector(
      "kaisha_cluster_frames_total", "Envelopes the gateway delivered or sent", MetricType::counter, {"direction"},
      [n] {
        const auto c = n->counters();
        return std::vector<Sample>{{{"in"}, static_cast<double>(c.received)}, {{"out"}, static_cast<double>(c.sent)}};
      }));
  out.push_back(r.collector("kaisha_cluster_dropped_frames_total", "Frames the gateway dropped, by reason",
                            MetricType::counter, {"reason"}, [n] {
                              std::vector<Sample> v;
                              for (const auto& [reason, count] : dropped_frames(n->counters()))
                                v.push_back({{reason}, static_cast<double>(count)});
                              return v;
                            }));
  out.push_back(r.collector("kaisha_cluster_impostors_total",
                            "Envelopes that named a sender other than the key's own node", MetricType::counter, {},
                            [n] {
                              return std::vector<Sample>{{{}, static_cast<double>(n->counters().dropped_impostor)}};
                            }));
  out.push_back(r.collector("kaisha_cluster_link_failures_total",
                            "Sends refused, CURVE clients rejected, handshakes refused by a peer, other protocols",
                            MetricType::counter, {"kind"}, [n] {
                              const auto c = n->counters();
                              return std::vector<Sample>{
                                  {{"send_failure"}, static_cast<double>(c.send_failures)},
                                  {{"auth_rejected"}, static_cast<double>(c.auth_rejected)},
                                  {{"handshake_failure"}, static_cast<double>(c.handshake_failures)},
                                  {{"refused_protocol"}, static_cast<double>(c.refused_protocol)}};
                            }));
  out.push_back(r.collector("kaisha_cluster_refusals_total", "Requests this node refused, by kind", MetricType::counter,
                            {"kind"}, [n] {
                              std::vector<Sample> v;
                              for (const auto& [kind, count] : n->refusals())
                                v.push_back({{kind}, static_cast<double>(count)});
                              return v;
                            }));
  out.push_back(
      r.collector("kaisha_cluster_heartbeats_read_total", "Heartbeats read and accepted", MetricType::counter, {}, [n] {
        return std::vector<Sample>{{{}, static_cast<double>(n->heartbeats_read())}};
      }));
  return out;
}

}  // namespace kaisha::cluster
