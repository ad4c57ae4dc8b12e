// Configuration, counters and failure reports of a node gateway (gateway.hpp).
// Kept apart so configuration code can build options without pulling in zmq.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::transport {

struct GatewayOptions {
  std::string node;                        // this node's name; routing id of its outbound DEALERs
  std::string bind = "tcp://127.0.0.1:0";  // port 0: an ephemeral port, read it from start()
  // Per-peer outbound queue (DEALER SNDHWM) and inbound queue (ROUTER RCVHWM),
  // in messages. A full outbound queue is reported to the sender, never
  // silently dropped.
  int send_hwm = 1000;
  int recv_hwm = 1000;
  // How long stop() may spend flushing messages already queued to peers. Never
  // 0 by default: linger 0 drops queued frames on close.
  int linger_ms = 1000;
  // The largest envelope frame. Inbound, libzmq checks the size in the frame
  // header before reading the body (ZMQ_MAXMSGSIZE on every socket) and cuts
  // off a peer that sends a larger one, so it is never held in memory; send()
  // refuses one up front since the peer would cut us off.
  size_t max_frame_bytes = 16u << 20;
  // ZMTP heartbeats on outbound connections, in ms (0 = off): a peer that
  // stops answering them for 3 intervals is reported disconnected
  // (on_peer_error "disconnected") even when no TCP reset ever comes.
  int heartbeat_ms = 0;

  // CurveZMQ. With a secret key set, every connection is encrypted and only
  // clients whose public key is in `authorised_keys` are accepted (ZAP).
  std::string public_key;                    // Z85; derived from secret_key if empty
  std::string secret_key;                    // Z85; empty = plaintext mode
  std::vector<std::string> authorised_keys;  // Z85 public keys of nodes allowed in
  // Z85 public key -> the one node name its holder may send as. A key not
  // listed here (a client such as `kaisha submit`) may use any name that is
  // not bound to a key here.
  std::map<std::string, std::string> key_names;
  // Plaintext needs this flag AND local endpoints (loopback tcp, ipc, inproc);
  // start() and connect() refuse anything else.
  bool allow_plaintext = false;

  // Where drops and refusals are logged; stderr when unset. Called on the I/O thread.
  std::function<void(std::string_view)> log;
};

// Who sent an inbound envelope, as the transport established it (not as the
// envelope claims): with CURVE, the key the ZAP handler authenticated, and the
// node that key is bound to (GatewayOptions::key_names). The envelope's
// from.node is then that node's name; for any other key it is no node's name.
struct Sender {
  std::string key;   // Z85; "" in plaintext (nothing is authenticated there)
  std::string node;  // "" for a key bound to no node (a client), and in plaintext
};

// Monotonic counts since start(); a snapshot from Gateway::counters().
struct GatewayCounters {
  uint64_t received = 0;              // envelopes decoded and delivered to on_receive
  uint64_t sent = 0;                  // envelopes handed to a peer's socket
  uint64_t dropped_malformed = 0;     // bad msgpack, wrong frame count, missing fields
  uint64_t dropped_version = 0;       // envelope_version this build does not speak
  uint64_t dropped_oversized = 0;     // frames above max_frame_bytes that got through (libzmq cuts most off first)
  uint64_t dropped_impostor = 0;      // from.node not the sender's own name (see gateway.hpp, Names)
  uint64_t dropped_unauthorised = 0;  // from a key no longer authorised (set_keys), on a connection made before
  uint64_t inbound_closed = 0;        // inbound connections that ended: the peer left, or was cut off for a
                                      // frame above max_frame_bytes or a protocol error
  uint64_t refused_protocol = 0;      // inbound handshakes of another protocol (e.g. an older kaisha build)
  uint64_t send_failures = 0;         // send() refused by a full peer queue or a socket error
  uint64_t auth_rejected = 0;         // CURVE clients refused by the ZAP handler
  uint64_t handshake_failures = 0;    // our own connections refused by a peer
};

}  // namespace kaisha::transport
