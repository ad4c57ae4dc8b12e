// A node's gateway to the other nodes of a company: envelopes in and out over
// ZeroMQ, with every socket owned by one dedicated I/O thread so that no
// caller (an actor, later) ever blocks on the network.
//
// Wiring. Each gateway binds one ROUTER for inbound traffic and opens one
// DEALER per peer for outbound traffic, whose routing id is this node's name.
// So a message from A to B always travels A's DEALER -> B's ROUTER, and B's
// reply travels B's DEALER -> A's ROUTER; a ROUTER never sends. Frames on the
// wire: DEALER sends [envelope msgpack]; the ROUTER reads [routing id =
// sender node][envelope msgpack]. Both nodes must therefore connect() to each
// other for a request/reply exchange.
//
// Hand-off. send() encodes the envelope on the caller's thread and pushes it
// with ZMQ_DONTWAIT into an inproc PUSH/PULL outbox read by the I/O thread,
// which blocks in zmq::poll on the outbox, the ROUTER and the ZAP socket and
// so wakes at once. send() therefore never blocks: it fails immediately for
// an unknown peer, a stopped gateway, an oversized envelope or a full outbox.
//
// Backpressure. The I/O thread sends to a peer's DEALER with ZMQ_DONTWAIT; a
// DEALER at its high-water mark refuses (EAGAIN) instead of dropping, and the
// gateway reports that through on_send_failed(id, peer, "backpressure"). This
// is the DEALER-side equivalent of ZMQ_ROUTER_MANDATORY: nothing is dropped
// silently. A DEALER queues while its peer is down (no ZMQ_IMMEDIATE, so a
// send right after connect() is not refused), so a dead peer shows up as a
// full queue once send_hwm messages are waiting, or as the requester's timeout.
//
// Inbound. Every frame is checked: two frames, size <= max_frame_bytes,
// decode_envelope() ok. Failures are counted (dropped_malformed, _version,
// _oversized), logged, and dropped; the loop keeps serving.
//
// Refusals. Each DEALER has a socket monitor; a failed handshake (wrong key,
// unauthorised key, plaintext against CURVE) is counted and reported once per
// peer through on_peer_error(peer, Error{"handshake", ...}) until a handshake
// succeeds, so a refused node learns why its messages go nowhere.
//
// Security. With a secret key the ROUTER is a CURVE server and the gateway
// answers ZAP requests itself on the I/O thread (inproc://zeromq.zap.01 in
// the gateway's own zmq context): only authorised public keys get in, and a
// plaintext client fails the handshake. Without a key, start() requires
// allow_plaintext and a loopback bind address, and connect() a local endpoint.
// Not yet done: tying a node's name (routing id, envelope.from.node) to the
// key it authenticated with, so an authorised node could claim another name.
//
// Thread safety: send(), connect() and counters() may be called from any
// thread. Set on_receive / on_send_failed / on_peer_error before start(); they run on the I/O
// thread and must not block for long (hand the envelope on and return); they
// may call send() but never stop(), which joins that very thread.
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
  using SendFailedFn = std::function<void(const SendFailure&)>;
  using PeerErrorFn = std::function<void(const std::string& peer, const Error&)>;

  Gateway();
  ~Gateway();  // stop()s
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  void on_receive(ReceiveFn fn);
  void on_send_failed(SendFailedFn fn);
  void on_peer_error(PeerErrorFn fn);

  // Validates options, binds the ROUTER and starts the I/O thread. Returns
  // the bound endpoint (the real port when the bind address asked for 0).
  Result<std::string> start(GatewayOptions options);

  // Opens the outbound DEALER to `peer_node` at `endpoint`. With CURVE,
  // `peer_public_key` is the peer's Z85 public key (its server key).
  Status connect(const std::string& peer_node, const std::string& endpoint,
                 const std::string& peer_public_key = {});

  // Closes the outbound DEALER to `peer_node`, dropping what is still queued
  // for it (a peer declared down, or one that moved to another endpoint);
  // connect() may then open a new one under the same name. Sends to it fail
  // with "unknown_peer" meanwhile.
  Status disconnect(const std::string& peer_node);

  // Queues `envelope` for `peer_node`; never blocks. Ok means handed to the
  // I/O thread; a later failure to queue it on the peer's socket arrives
  // through on_send_failed.
  Status send(const std::string& peer_node, const msg::Envelope& envelope);

  // Stops the I/O thread and closes the sockets; queued outbound messages get
  // up to linger_ms to leave. Messages still in the outbox are reported as
  // "stopped" failures. Idempotent.
  void stop();

  GatewayCounters counters() const;
  const std::string& endpoint() const { return endpoint_; }
  bool running() const;

 private:
  struct Counters {
    std::atomic<uint64_t> received{0}, sent{0}, dropped_malformed{0}, dropped_version{0},
        dropped_oversized{0}, send_failures{0}, auth_rejected{0}, handshake_failures{0};
  };
  // One outbound connection: the DEALER and the PAIR reading its monitor events.
  struct Peer {
    std::string endpoint;
    zmq::socket_t dealer;
    zmq::socket_t monitor;
    bool failure_reported = false;  // report a refusal once, not at every reconnect
  };

  void run();  // the I/O thread
  void handle_inbound(std::vector<zmq::message_t>& parts);
  void handle_outbox(std::vector<zmq::message_t>& parts, bool stopping);
  void handle_zap();
  void handle_monitor(const std::string& name, Peer& peer);
  void adopt_pending();
  void fail(std::string id, std::string peer, Error error);
  void log(const std::string& line);
  // Logs the n-th occurrence of a drop only while n is small or a power of
  // two, so a peer flooding garbage cannot flood the log as well.
  void log_drop(uint64_t n, const std::string& line);

  GatewayOptions options_;
  std::string endpoint_;
  bool curve_ = false;
  ReceiveFn on_receive_;
  SendFailedFn on_send_failed_;
  PeerErrorFn on_peer_error_;
  Counters counters_;

  std::unique_ptr<zmq::context_t> ctx_;
  // Owned by the I/O thread once it runs.
  zmq::socket_t router_, pull_, zap_;
  std::map<std::string, Peer> dealers_;
  std::unique_ptr<ZapAuthoriser> zap_auth_;

  // Caller side, guarded by mu_: the outbox PUSH (zmq sockets are not
  // thread-safe), the known peers, and DEALERs not yet adopted by the thread.
  mutable std::mutex mu_;
  bool running_ = false;
  zmq::socket_t push_;
  std::set<std::string> peers_;
  std::vector<std::pair<std::string, Peer>> pending_;
  std::vector<std::string> closing_;  // DEALERs the I/O thread must close, before adopting pending_
  std::atomic<bool> has_pending_{false};
  uint64_t monitor_seq_ = 0;

  std::atomic<bool> stop_{false};
  std::thread io_;
};

}  // namespace kaisha::transport
