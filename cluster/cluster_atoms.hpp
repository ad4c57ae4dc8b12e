// CAF atoms and message types of the cluster layer (cluster/ sources only).
#pragma once

#include <caf/all.hpp>

#include "runtime/core/result.hpp"
#include "runtime/messages/envelope.hpp"

namespace kaisha::cluster {

using envelope_atom = caf::atom_constant<caf::atom("envelope")>;  // an inbound envelope to serve
using outcome_atom = caf::atom_constant<caf::atom("outcome")>;    // a cross-node request ended
using lost_atom = caf::atom_constant<caf::atom("lost")>;          // the agent's node went down

// How one cross-node request ended: its reply envelope, or why there is none
// (code "node_down", "timeout", "backpressure", ...).
struct RemoteOutcome {
  std::string request_id;
  std::string node;  // where the request went
  bool ok = false;
  msg::Envelope reply;
  Error error;
};

}  // namespace kaisha::cluster

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::msg::Envelope)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::cluster::RemoteOutcome)
