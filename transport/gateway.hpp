// A node's gateway to the other nodes of a company: envelopes in and out over
// ZeroMQ, with every socket owned by one dedicated I/O thread so that no
// caller (an actor, later) ever blocks on the network.
//
// Wiring. Each gateway binds one PULL socket for inbound traffic and opens
// one PUSH per peer for outbound traffic. So a message from A to B always
// travels A's PUSH -> B's PULL, and B's reply travels B's PUSH -> A's PULL;
// both nodes must therefore connect() to each other for a request/reply
// exchange. One frame on the wire: [envelope msgpack]. The inbound socket
// has no routing ids a peer could choose: a connection can neither take over
// another's nor squat a name, and who sent a frame is what the CURVE
// handshake authenticated (Sender), read from the frame's metadata.
// (Gateways before this wiring used DEALER -> ROUTER; libzmq refuses such a
// peer in the handshake, counted as refused_protocol here and reported as a
// protocol handshake failure on its side.)
//
// Hand-off. send() encodes the envelope and sends it on the peer's PUSH
// right on the caller's thread, with ZMQ_DONTWAIT, under the gateway's mutex
// (a zmq socket may be used by several threads one after another when a full
// memory barrier separates them; the mutex is that barrier). libzmq's own I/O
// thread then writes it to tcp: no extra thread hop, no wake-up to wait for,
// which is what makes a cross-node ask close to a raw socket round trip.
// The gateway's I/O thread owns the inbound side only: it blocks in poll(2)
// on the ZMQ_FDs of the PULL, the ZAP socket, the sockets' monitors and an
// inproc wake-up socket (connect, disconnect, stop), and so wakes at once.
//
// Backpressure. A PUSH at its high-water mark refuses (EAGAIN) instead of
// dropping, and send() returns that at once as Error{"backpressure"}: nothing
// is dropped silently. A PUSH queues while its peer is down (no
// ZMQ_IMMEDIATE, so a send right after connect() is not refused), so a dead
// peer shows up as a full queue once send_hwm messages are waiting, or as the
// requester's timeout.
//
// Inbound. Every socket has ZMQ_MAXMSGSIZE = max_frame_bytes: libzmq reads
// a frame's size from its header and cuts the connection off before reading
// a larger body. Every frame is then checked: one frame, decode_envelope()
// ok, and the sender is who it says it is (below). Failures are counted
// (dropped_malformed, _version, _oversized, _impostor), logged, and dropped;
// the loop keeps serving.
//
// Refusals. Each PUSH has a socket monitor; a failed handshake (wrong key,
// unauthorised key, plaintext against CURVE) is counted and reported once per
// peer through on_peer_error(peer, Error{"handshake", ...}) until a handshake
// succeeds, so a refused node learns why its messages go nowhere. A peer
// whose established connection ends is reported once as
// Error{"disconnected", ...} (with heartbeat_ms, also one that stops
// answering), until it is connected again.
//
// Security. With a secret key the PULL is a CURVE server and the gateway
// answers ZAP requests itself on the I/O thread (inproc://zeromq.zap.01 in
// the gateway's own zmq context): only authorised public keys get in, and a
// plaintext client fails the handshake. Without a key, start() requires
// allow_plaintext and a loopback bind address, and connect() a local endpoint.
// Names. With CURVE, an envelope's from.node must be the name `key_names`
// binds to the key its sender authenticated with; a key not in key_names may
// not use any name that is in it. So an authorised key cannot pass itself
// off as a node it is not. In plaintext (loopback only) nothing is
// authenticated and from.node is taken as it comes.
//
// Reload. set_keys() replaces the authorised keys and key names of a
// running gateway (cluster.yaml re-read): new handshakes are decided by the
// new list at once, and frames still arriving on a connection whose key is
// no longer authorised (it was let in before) are dropped and counted
// (dropped_unauthorised), so a removed key speaks no more from then on.
// A connection refused at the handshake is not retried by libzmq: a peer
// whose key is authorised later gets in when it connects again.
//
// Thread safety: send(), connect(), disconnect(), set_keys() and counters()
// may be called from any thread. Set on_receive / on_peer_error before start(); they run on
// the I/O thread and must not block for long (hand the envelope on and
// return); they may call send() but never stop(), which joins that very thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <zmq.hpp>

#include "runtime/core/result.hpp"
#include "runtime/messages/envelope.hpp"
#include "transport/gateway_options.hpp"

namespace kaisha::transport {

class ZapAuthoriser;

class Gateway {
 public:
  using ReceiveFn = std::function<void(msg::Envelope)>;
  using ReceiveFromFn = std::function<void(msg::Envelope, const Sender&)>;
  using PeerErrorFn = std::function<void(const std::string& peer, const Error&)>;

  Gateway();
  ~Gateway();  // stop()s
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  void on_receive(ReceiveFn fn);
  // As on_receive, with who sent the envelope (see Sender).
  void on_receive_from(ReceiveFromFn fn);
  void on_peer_error(PeerErrorFn fn);

  // Validates options, binds the PULL and starts the I/O thread. Returns
  // the bound endpoint (the real port when the bind address asked for 0).
  Result<std::string> start(GatewayOptions options);

  // Opens the outbound PUSH to `peer_node` at `endpoint`. With CURVE,
  // `peer_public_key` is the peer's Z85 public key (its server key).
  Status connect(const std::string& peer_node, const std::string& endpoint, const std::string& peer_public_key = {});

  // Replaces authorised_keys and key_names (see Reload above). With CURVE
  // only; an Error names a malformed key and changes nothing.
  Status set_keys(const std::vector<std::string>& authorised_keys, const std::map<std::string, std::string>& key_names);

  // Closes the outbound PUSH to `peer_node`, dropping what is still queued
  // for it (a peer declared down, or one that moved to another endpoint);
  // connect() may then open a new one under the same name. Sends to it fail
  // with "unknown_peer" meanwhile.
  Status disconnect(const std::string& peer_node);

  // Queues `envelope` on the peer's socket; never blocks. Ok means it is in
  // libzmq's queue to the peer. `envelope.from.node` must be this node.
  // Errors: "unknown_peer", "too_large",
  // "backpressure" (the peer's queue holds send_hwm messages), "transport"
  // (not running, or a socket error).
  Status send(const std::string& peer_node, const msg::Envelope& envelope);

  // Stops the I/O thread and closes the sockets; queued outbound messages get
  // up to linger_ms to leave. Idempotent.
  void stop();

  GatewayCounters counters() const;
  const std::string& endpoint() const { return endpoint_; }
  bool running() const;

 private:
  // Who may connect and under which names; replaced whole by set_keys(),
  // read by the I/O thread through a copy of the pointer.
  struct Access {
    std::shared_ptr<const ZapAuthoriser> zap;
    std::map<std::string, std::string> key_names;
    std::set<std::string> bound_names;  // the values of key_names
  };
  struct Counters {
    std::atomic<uint64_t> received{0}, sent{0}, dropped_malformed{0}, dropped_version{0}, dropped_oversized{0},
        dropped_impostor{0}, dropped_unauthorised{0}, send_failures{0}, auth_rejected{0}, handshake_failures{0},
        inbound_closed{0}, refused_protocol{0};
  };
  // The PAIR reading one PUSH's monitor events (owned by the I/O thread).
  struct Monitor {
    std::string endpoint;  // the peer's
    zmq::socket_t socket;
    int fd = -1;                    // the socket's ZMQ_FD, read once it is adopted
    bool failure_reported = false;  // report a refusal once, not at every reconnect
    bool connected = false;         // a handshake succeeded and no disconnect came since
  };

  void run();  // the I/O thread
  void handle_inbound(std::vector<zmq::message_t>& parts);
  // Why `env` may not claim its from.node as `sender`; "" if it may.
  std::string impostor(const msg::Envelope& env, const Sender& sender, const Access& access) const;
  void handle_inbound_monitor();
  void handle_zap();
  void handle_monitor(const std::string& name, Monitor& monitor);
  void adopt_pending();
  void wake();  // with mu_ held
  void log(const std::string& line);
  // Logs the n-th occurrence of a drop only while n is small or a power of
  // two, so a peer flooding garbage cannot flood the log as well.
  void log_drop(uint64_t n, const std::string& line);

  GatewayOptions options_;
  std::string endpoint_;
  bool curve_ = false;
  std::shared_ptr<const Access> access() const;
  mutable std::mutex access_mu_;
  std::shared_ptr<const Access> access_;
  ReceiveFromFn on_receive_;
  PeerErrorFn on_peer_error_;
  Counters counters_;

  std::unique_ptr<zmq::context_t> ctx_;
  // Owned by the I/O thread once it runs.
  zmq::socket_t inbound_, wake_in_, zap_;
  zmq::socket_t inbound_monitor_;  // the PULL's monitor: closed connections, refused protocols
  std::map<std::string, Monitor> monitors_;
  uint64_t disconnects_ = 0;  // outbound connections seen closing, for the log's rate limit

  // Guarded by mu_ (zmq sockets are not thread-safe): the outbound PUSHes,
  // the wake-up PUSH, and monitors not yet adopted by the I/O thread.
  mutable std::mutex mu_;
  bool running_ = false;
  zmq::socket_t wake_out_;
  std::map<std::string, zmq::socket_t> outbound_;
  std::vector<std::pair<std::string, Monitor>> new_monitors_;
  std::vector<std::string> closing_;  // monitors the I/O thread must close, before adopting new_monitors_
  std::atomic<bool> has_pending_{false};
  uint64_t monitor_seq_ = 0;

  std::atomic<bool> stop_{false};
  std::thread io_;
};

}  // namespace kaisha::transport
