// The failure detector's rule, kept apart from the membership table so that
// the timing policy reads in one place: a member is alive while heard from
// within suspect_after_ms, suspect until down_after_ms, then down. "Heard
// from" means any message that came directly from it (heartbeats every
// heartbeat_ms keep a quiet node alive); gossip about it does not count.
#pragma once

#include <cstdint>

#include "runtime/cluster/cluster_config.hpp"

namespace kaisha::cluster {

// gone: removed from cluster.yaml by a reload (never set by the detector).
enum class MemberState { alive, suspect, down, gone };
const char* to_string(MemberState s);

// The state of a member silent for `silent_ms`.
MemberState classify(int64_t silent_ms, const Timeouts& t);

// The longest a dead node can stay undetected when the detector runs every
// `tick_ms`: its last heartbeat may have been sent just before it died.
int64_t detection_bound_ms(const Timeouts& t, int64_t tick_ms);

}  // namespace kaisha::cluster
