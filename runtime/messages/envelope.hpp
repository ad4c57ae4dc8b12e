// The envelope every message travels in when it leaves an actor's process
// (and the fields the journal records inside one): who sent it to whom, what
// it answers, how long it may take, and which task's trace it belongs to.
// The payload is the msgpack map encoding of one message struct whose
// kType/kVersion are carried in `type` and `version`.
#pragma once

#include <cstdint>
#include <string>

#include <msgpack.hpp>

#include "runtime/messages/agent_ref.hpp"

namespace kaisha::msg {

// Envelope versions: 1 had only the epoch `deadline_ms`; 2 adds `budget_ms`,
// the relative time the sender will wait, which the receiver turns into a
// deadline on its own steady clock (time_budget.hpp). A version-2 sender still
// fills `deadline_ms` for readers of version 1.
inline constexpr uint32_t kEnvelopeVersion = 2;

struct Envelope {
  uint32_t envelope_version = kEnvelopeVersion;
  std::string id;           // unique per message
  std::string correlation;  // id of the request this message answers; "" for requests
  AgentRef from;
  AgentRef to;
  std::string type;         // message type name, e.g. "ask_request"
  uint32_t version = 1;     // version of that message type's encoding
  int64_t deadline_ms = 0;  // unix epoch milliseconds; 0 = none (version 1; wall clock)
  std::string trace;        // trace id shared by every message of one task
  std::string payload;      // msgpack bytes of the message struct
  int64_t budget_ms = 0;    // ms the sender waits from sending; 0 = none (version 2)
  MSGPACK_DEFINE_MAP(envelope_version, id, correlation, from, to, type, version, deadline_ms, trace, payload, budget_ms)
};

}  // namespace kaisha::msg
