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

struct Envelope {
  uint32_t envelope_version = 1;
  std::string id;           // unique per message
  std::string correlation;  // id of the request this message answers; "" for requests
  AgentRef from;
  AgentRef to;
  std::string type;         // message type name, e.g. "ask_request"
  uint32_t version = 1;     // version of that message type's encoding
  int64_t deadline_ms = 0;  // unix epoch milliseconds; 0 = none
  std::string trace;        // trace id shared by every message of one task
  std::string payload;      // msgpack bytes of the message struct
  MSGPACK_DEFINE_MAP(envelope_version, id, correlation, from, to, type, version,
                     deadline_ms, trace, payload)
};

}  // namespace kaisha::msg
