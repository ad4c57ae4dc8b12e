// Configuration, counters and failure reports of a node gateway (gateway.hpp).
// Kept apart so configuration code can build options without pulling in zmq.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::transport {

struct GatewayOptions {
  std::string node;                       // this node's name; routing id of its outbound DEALERs
  std::string bind = "tcp://127.0.0.1:0";  // port 0: an ephemeral port, read it from start()
  // Per-peer outbound queue (DEALER SNDHWM) and inbound queue (ROUTER RCVHWM),
  // in messages. A full outbound queue is reported to the sender, never
  // silently dropped.
  int send_hwm = 1000;
  int recv_hwm = 1000;
  // Messages handed over by send() and not yet taken by the I/O thread. Full
  // means the I/O thread is far behind; send() then returns an error at once.
  int outbox_hwm = 100000;
  // How long stop() may spend flushing messages already queued to peers. Never
  // 0 by default: linger 0 drops queued frames on close.
  int linger_ms = 1000;
  // Inbound envelopes larger than this are counted and dropped; send() refuses
  // them up front since the peer would drop them anyway.
  size_t max_frame_bytes = 16u << 20;

  // CurveZMQ. With a secret key set, every connection is encrypted and only
  // clients whose public key is in `authorised_keys` are accepted (ZAP).
  std::string public_key;                    // Z85; derived from secret_key if empty
  std::string secret_key;                    // Z85; empty = plaintext mode
  std::vector<std::string> authorised_keys;  // Z85 public keys of nodes allowed in
  // Plaintext needs this flag AND local endpoints (loopback tcp, ipc, inproc);
  // start() and connect() refuse anything else.
  bool allow_plaintext = false;

  // Where drops and refusals are logged; stderr when unset. Called on the I/O thread.
  std::function<void(std::string_view)> log;
};

// Monotonic counts since start(); a snapshot from Gateway::counters().
struct GatewayCounters {
  uint64_t received = 0;           // envelopes decoded and delivered to on_receive
  uint64_t sent = 0;               // envelopes handed to a peer's socket
  uint64_t dropped_malformed = 0;  // bad msgpack, wrong frame count, missing fields
  uint64_t dropped_version = 0;    // envelope_version this build does not speak
  uint64_t dropped_oversized = 0;  // frames above max_frame_bytes
  uint64_t send_failures = 0;      // outbound envelopes reported via on_send_failed
  uint64_t auth_rejected = 0;      // CURVE clients refused by the ZAP handler
  uint64_t handshake_failures = 0;  // our own connections refused by a peer
};

// An outbound envelope that did not leave: which one, to whom, and why.
// error.code: "backpressure" (peer queue full), "stopped" (gateway stopped
// before sending it), "transport" (a socket error).
struct SendFailure {
  std::string envelope_id;
  std::string peer;
  Error error;
};

}  // namespace kaisha::transport
