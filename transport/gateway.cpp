#include "transport/gateway.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>

#include <zmq_addon.hpp>

#include "runtime/messages/codec.hpp"
#include "transport/curve_keys.hpp"
#include "transport/endpoint.hpp"
#include "transport/zap_handler.hpp"

namespace kaisha::transport {

namespace {

// Outbox commands, first frame of each outbox message.
constexpr char kSendCmd = 'S';  // [S][peer][envelope id][envelope bytes]
constexpr char kStopCmd = 'Q';  // [Q]: wake the thread so it sees stop_
constexpr char kWakeCmd = 'W';  // [W]: wake the thread to adopt a new peer

// Inbound frames handled per poll round before looking at the outbox again,
// so a flood of inbound traffic cannot starve outbound traffic.
constexpr int kBatch = 256;

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

bool is_power_of_two(uint64_t n) { return n && !(n & (n - 1)); }

}  // namespace

Gateway::Gateway() = default;

Gateway::~Gateway() { stop(); }

void Gateway::on_receive(ReceiveFn fn) { on_receive_ = std::move(fn); }
void Gateway::on_send_failed(SendFailedFn fn) { on_send_failed_ = std::move(fn); }
void Gateway::on_peer_error(PeerErrorFn fn) { on_peer_error_ = std::move(fn); }

bool Gateway::running() const {
  std::lock_guard<std::mutex> g(mu_);
  return running_;
}

Result<std::string> Gateway::start(GatewayOptions options) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (running_ || ctx_) return Error{"transport", "gateway start: already started"};
  }
  const std::string where = "gateway start (node '" + options.node + "', bind " + options.bind + ")";
  if (options.node.empty()) return Error{"config", "gateway start: node name is empty"};
  if (options.send_hwm < 0 || options.recv_hwm < 0 || options.outbox_hwm < 0 || options.linger_ms < 0)
    return Error{"config", where + ": high-water marks and linger must not be negative"};
  if (options.max_frame_bytes == 0) return Error{"config", where + ": max_frame_bytes is 0"};

  curve_ = !options.secret_key.empty();
  std::unique_ptr<ZapAuthoriser> auth;
  if (curve_) {
    auto derived = curve_public_from_secret(options.secret_key);
    if (!derived.ok()) return Error{"config", where + ": " + derived.error().message};
    if (options.public_key.empty()) options.public_key = *derived;
    if (options.public_key != *derived)
      return Error{"config", where + ": public key does not belong to the secret key"};
    auto a = ZapAuthoriser::from_z85(options.authorised_keys);
    if (!a.ok()) return Error{"config", where + ": " + a.error().message};
    auth = std::make_unique<ZapAuthoriser>(std::move(*a));
  } else {
    if (!options.allow_plaintext)
      return Error{"config", where + ": no CURVE secret key and plaintext not allowed; "
                                     "generate keys with 'kaisha keygen' or set allow_plaintext for a "
                                     "loopback-only setup"};
    if (!is_local_endpoint(options.bind))
      return Error{"config", where + ": plaintext is only allowed on a loopback address "
                                     "(tcp://127.0.0.1, tcp://[::1], ipc://); configure CURVE keys to "
                                     "bind a network address"};
  }

  try {
    auto ctx = std::make_unique<zmq::context_t>(1);
    zmq::socket_t zap;
    if (curve_) {
      // The handler must be bound before the ROUTER can accept a handshake,
      // otherwise libzmq lets CURVE clients in without asking.
      zap = zmq::socket_t(*ctx, zmq::socket_type::rep);
      zap.set(zmq::sockopt::linger, 0);  // ZAP replies are worthless after stop
      zap.bind(kZapEndpoint);
    }
    zmq::socket_t router(*ctx, zmq::socket_type::router);
    router.set(zmq::sockopt::linger, options.linger_ms);
    router.set(zmq::sockopt::rcvhwm, options.recv_hwm);
    // A restarted node reconnects under the same name; let it take over
    // rather than have its frames refused as a duplicate routing id.
    router.set(zmq::sockopt::router_handover, 1);
    if (curve_) {
      router.set(zmq::sockopt::curve_server, 1);
      router.set(zmq::sockopt::curve_secretkey, options.secret_key);
      router.set(zmq::sockopt::zap_domain, "kaisha");
    }
    router.bind(options.bind);
    std::string ep = router.get(zmq::sockopt::last_endpoint);

    std::string outbox = "inproc://kaisha-gateway-outbox";
    zmq::socket_t pull(*ctx, zmq::socket_type::pull);
    pull.set(zmq::sockopt::rcvhwm, options.outbox_hwm);
    pull.set(zmq::sockopt::linger, 0);
    pull.bind(outbox);
    zmq::socket_t push(*ctx, zmq::socket_type::push);
    push.set(zmq::sockopt::sndhwm, options.outbox_hwm);
    push.set(zmq::sockopt::linger, 0);  // the thread reports leftovers itself
    push.connect(outbox);

    ctx_ = std::move(ctx);
    zap_ = std::move(zap);
    router_ = std::move(router);
    pull_ = std::move(pull);
    endpoint_ = ep;
    options_ = std::move(options);
    zap_auth_ = std::move(auth);
    if (curve_ && zap_auth_->size() == 0)
      log("no authorised keys configured: every peer connecting to " + ep + " will be refused");
    {
      std::lock_guard<std::mutex> g(mu_);
      push_ = std::move(push);
      running_ = true;
    }
    stop_ = false;
    io_ = std::thread([this] { run(); });  // thread start is the barrier zmq needs to move sockets
    return ep;
  } catch (const zmq::error_t& e) {
    zap_ = zmq::socket_t();
    router_ = zmq::socket_t();
    pull_ = zmq::socket_t();
    ctx_.reset();
    return Error{"transport", where + ": " + e.what()};
  }
}

Status Gateway::connect(const std::string& peer_node, const std::string& endpoint,
                        const std::string& peer_public_key) {
  const std::string where = "gateway connect to '" + peer_node + "' at " + endpoint;
  if (peer_node.empty()) return Error{"config", "gateway connect: peer node name is empty"};
  // Held throughout: curve_, options_ and ctx_ are set by start() before it
  // publishes running_ under this mutex, and stop() clears running_ under it.
  std::lock_guard<std::mutex> g(mu_);
  if (!running_) return Error{"transport", where + ": gateway is not running"};
  if (curve_) {
    if (!is_z85_key(peer_public_key))
      return Error{"config", where + ": the peer's public key must be a 40-character Z85 key"};
  } else {
    if (!peer_public_key.empty())
      return Error{"config", where + ": a peer key was given but this gateway runs without CURVE keys"};
    if (!is_local_endpoint(endpoint))
      return Error{"config", where + ": plaintext is only allowed to a loopback address"};
  }
  if (peers_.count(peer_node)) return Error{"transport", where + ": already connected to that node"};
  try {
    zmq::socket_t dealer(*ctx_, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::routing_id, options_.node);
    dealer.set(zmq::sockopt::sndhwm, options_.send_hwm);
    dealer.set(zmq::sockopt::linger, options_.linger_ms);
    if (curve_) {
      dealer.set(zmq::sockopt::curve_serverkey, peer_public_key);
      dealer.set(zmq::sockopt::curve_publickey, options_.public_key);
      dealer.set(zmq::sockopt::curve_secretkey, options_.secret_key);
    }
    // The monitor must exist before connect() so the first handshake is seen.
    std::string mon_ep = "inproc://kaisha-gateway-monitor-" + std::to_string(++monitor_seq_);
    if (zmq_socket_monitor(dealer.handle(), mon_ep.c_str(),
                           ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0)
      throw zmq::error_t();
    zmq::socket_t monitor(*ctx_, zmq::socket_type::pair);
    monitor.set(zmq::sockopt::linger, 0);
    monitor.connect(mon_ep);
    dealer.connect(endpoint);
    // Created here so a bad endpoint is reported to the caller; the I/O
    // thread adopts it under mu_, which orders the hand-over between threads.
    pending_.emplace_back(peer_node, Peer{endpoint, std::move(dealer), std::move(monitor)});
    peers_.insert(peer_node);
    has_pending_ = true;
    zmq::message_t w(&kWakeCmd, 1);
    (void)push_.send(w, zmq::send_flags::dontwait);  // if full, the poll timeout adopts it
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return Error{"transport", where + ": " + e.what()};
  }
}

Status Gateway::disconnect(const std::string& peer_node) {
  std::lock_guard<std::mutex> g(mu_);
  const std::string where = "gateway disconnect from '" + peer_node + "'";
  if (!running_) return Error{"transport", where + ": gateway is not running"};
  if (!peers_.erase(peer_node)) return Error{"unknown_peer", where + ": no connection to that node"};
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->first != peer_node) continue;
    it->second.dealer.set(zmq::sockopt::linger, 0);
    it->second.monitor.close();
    it->second.dealer.close();
    pending_.erase(it);
    return Status::Ok();
  }
  closing_.push_back(peer_node);
  has_pending_ = true;
  try {
    zmq::message_t w(&kWakeCmd, 1);
    (void)push_.send(w, zmq::send_flags::dontwait);  // if full, the poll timeout closes it
  } catch (const zmq::error_t&) {
  }
  return Status::Ok();
}

Status Gateway::send(const std::string& peer_node, const msg::Envelope& envelope) {
  std::string bytes = msg::encode(envelope);  // outside the lock: encoding is the costly part
  std::lock_guard<std::mutex> g(mu_);
  const std::string what = "gateway send of '" + envelope.type + "' " + envelope.id + " to '" + peer_node + "'";
  if (!running_) return Error{"transport", what + ": gateway is not running"};
  if (!peers_.count(peer_node)) return Error{"unknown_peer", what + ": no connection to that node"};
  if (bytes.size() > options_.max_frame_bytes)
    return Error{"too_large", what + ": " + std::to_string(bytes.size()) + " bytes exceeds max_frame_bytes " +
                                  std::to_string(options_.max_frame_bytes)};
  try {
    std::vector<zmq::message_t> parts;
    parts.emplace_back(&kSendCmd, 1);
    parts.emplace_back(peer_node);
    parts.emplace_back(envelope.id);
    parts.emplace_back(bytes.data(), bytes.size());
    if (!zmq::send_multipart(push_, parts, zmq::send_flags::dontwait))
      return Error{"backpressure", what + ": outbox full (" + std::to_string(options_.outbox_hwm) +
                                       " messages waiting for the I/O thread)"};
  } catch (const zmq::error_t& e) {
    return Error{"transport", what + ": " + e.what()};
  }
  return Status::Ok();
}

void Gateway::stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!running_) return;
    running_ = false;  // from here send() and connect() refuse
    stop_ = true;
    try {
      zmq::message_t q(&kStopCmd, 1);
      (void)push_.send(q, zmq::send_flags::dontwait);  // if full, the poll timeout wakes the thread
    } catch (const zmq::error_t&) {
    }
  }
  if (io_.joinable()) io_.join();
  {
    std::lock_guard<std::mutex> g(mu_);
    push_.close();
    for (auto& p : pending_) {
      // Never adopted: nothing was sent to it.
      p.second.dealer.set(zmq::sockopt::linger, 0);
      p.second.monitor.close();
      p.second.dealer.close();
    }
    pending_.clear();
    closing_.clear();
    peers_.clear();
  }
  // Terminating the context waits for each closed socket's linger, which is
  // finite, so stop() returns within about linger_ms.
  ctx_.reset();
}

GatewayCounters Gateway::counters() const {
  GatewayCounters c;
  c.received = counters_.received.load();
  c.sent = counters_.sent.load();
  c.dropped_malformed = counters_.dropped_malformed.load();
  c.dropped_version = counters_.dropped_version.load();
  c.dropped_oversized = counters_.dropped_oversized.load();
  c.send_failures = counters_.send_failures.load();
  c.auth_rejected = counters_.auth_rejected.load();
  c.handshake_failures = counters_.handshake_failures.load();
  return c;
}

void Gateway::run() {
  std::vector<zmq::message_t> parts;
  std::vector<zmq::pollitem_t> items;
  std::vector<std::pair<const std::string*, Peer*>> polled;
  while (!stop_.load()) {
    if (has_pending_.load()) adopt_pending();
    items.clear();
    polled.clear();
    items.push_back({router_.handle(), 0, ZMQ_POLLIN, 0});
    items.push_back({pull_.handle(), 0, ZMQ_POLLIN, 0});
    // Only real sockets go in: a null socket would make zmq poll fd 0.
    if (curve_) items.push_back({zap_.handle(), 0, ZMQ_POLLIN, 0});
    const size_t first_monitor = items.size();
    for (auto& [name, peer] : dealers_) {
      items.push_back({peer.monitor.handle(), 0, ZMQ_POLLIN, 0});
      polled.emplace_back(&name, &peer);
    }
    try {
      // The timeout is only a backstop for a wake-up that could not be
      // queued; normally the outbox wakes the thread at once.
      zmq::poll(items, std::chrono::milliseconds(200));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      log(std::string("poll failed: ") + e.what());
      break;
    }
    try {
      if (curve_ && (items[2].revents & ZMQ_POLLIN)) handle_zap();
      for (size_t i = 0; i < polled.size(); ++i)
        if (items[first_monitor + i].revents & ZMQ_POLLIN) handle_monitor(*polled[i].first, *polled[i].second);
      if (items[0].revents & ZMQ_POLLIN) {
        for (int i = 0; i < kBatch; ++i) {
          parts.clear();
          if (!zmq::recv_multipart(router_, std::back_inserter(parts), zmq::recv_flags::dontwait)) break;
          handle_inbound(parts);
        }
      }
      if (items[1].revents & ZMQ_POLLIN) {
        for (int i = 0; i < kBatch * 4 && !stop_.load(); ++i) {
          parts.clear();
          if (!zmq::recv_multipart(pull_, std::back_inserter(parts), zmq::recv_flags::dontwait)) break;
          handle_outbox(parts, false);
        }
      }
    } catch (const zmq::error_t& e) {
      log(std::string("socket error: ") + e.what());
    }
  }
  // Whatever is still in the outbox was accepted by send() but will never
  // leave; tell the senders instead of letting them wait for a timeout.
  try {
    for (;;) {
      parts.clear();
      if (!zmq::recv_multipart(pull_, std::back_inserter(parts), zmq::recv_flags::dontwait)) break;
      handle_outbox(parts, true);
    }
  } catch (const zmq::error_t&) {
  }
  router_.close();
  pull_.close();
  if (curve_) zap_.close();
  adopt_pending();
  for (auto& [name, peer] : dealers_) peer.monitor.close();
  dealers_.clear();  // closes each DEALER; its linger bounds the context's termination
}

void Gateway::handle_inbound(std::vector<zmq::message_t>& parts) {
  std::string from = parts.empty() ? std::string("?") : parts[0].to_string();
  if (parts.size() != 2) {
    auto n = ++counters_.dropped_malformed;
    log_drop(n, "dropped a message from '" + from + "': expected [routing id][envelope], got " +
                    std::to_string(parts.size()) + " frames");
    return;
  }
  if (parts[1].size() > options_.max_frame_bytes) {
    auto n = ++counters_.dropped_oversized;
    log_drop(n, "dropped a " + std::to_string(parts[1].size()) + "-byte frame from '" + from +
                    "': above max_frame_bytes " + std::to_string(options_.max_frame_bytes));
    return;
  }
  auto env = msg::decode_envelope(parts[1].to_string_view());
  if (!env.ok()) {
    bool version = env.error().code == "version";
    auto n = version ? ++counters_.dropped_version : ++counters_.dropped_malformed;
    log_drop(n, "dropped a frame from '" + from + "': " + env.error().message);
    return;
  }
  ++counters_.received;
  if (!on_receive_) return;
  try {
    on_receive_(std::move(*env));
  } catch (const std::exception& e) {
    log(std::string("on_receive threw: ") + e.what());
  } catch (...) {  // an escaping exception would terminate the process
    log("on_receive threw a non-standard exception");
  }
}

void Gateway::handle_outbox(std::vector<zmq::message_t>& parts, bool stopping) {
  if (parts.empty() || parts[0].size() != 1) return;
  if (*static_cast<const char*>(parts[0].data()) == kWakeCmd) {
    adopt_pending();
    return;
  }
  if (*static_cast<const char*>(parts[0].data()) != kSendCmd || parts.size() != 4) return;
  std::string peer = parts[1].to_string();
  std::string id = parts[2].to_string();
  if (stopping) {
    fail(std::move(id), std::move(peer), Error{"stopped", "gateway stopped before the message was sent"});
    return;
  }
  auto it = dealers_.find(peer);
  if (it == dealers_.end()) {
    adopt_pending();
    it = dealers_.find(peer);
  }
  if (it == dealers_.end()) {  // send() checked the peer; only a bug gets here
    fail(std::move(id), std::move(peer), Error{"unknown_peer", "no connection to that node"});
    return;
  }
  try {
    if (it->second.dealer.send(parts[3], zmq::send_flags::dontwait)) {
      ++counters_.sent;
    } else {
      fail(std::move(id), std::move(peer),
           Error{"backpressure", "queue to the peer is full (send_hwm " + std::to_string(options_.send_hwm) +
                                     " reached; the peer is slow, down or not reading)"});
    }
  } catch (const zmq::error_t& e) {
    fail(std::move(id), std::move(peer), Error{"transport", e.what()});
  }
}

void Gateway::handle_zap() {
  std::vector<zmq::message_t> request;
  while (zmq::recv_multipart(zap_, std::back_inserter(request), zmq::recv_flags::dontwait)) {
    bool accepted = false;
    std::string client;
    auto reply = zap_auth_->reply(request, &accepted, &client);
    zmq::send_multipart(zap_, reply);
    if (!accepted) {
      auto n = ++counters_.auth_rejected;
      log_drop(n, "refused a connection from " + client + ": " + reply[3].to_string());
    }
    request.clear();
  }
}

void Gateway::adopt_pending() {
  std::lock_guard<std::mutex> g(mu_);
  // Closing first: a disconnect() followed by a connect() under the same
  // name must end with the new DEALER in place.
  for (const auto& name : closing_) {
    auto it = dealers_.find(name);
    if (it == dealers_.end()) continue;
    it->second.dealer.set(zmq::sockopt::linger, 0);  // what is queued for a gone peer is worthless
    it->second.monitor.close();
    dealers_.erase(it);
  }
  closing_.clear();
  for (auto& p : pending_) dealers_.emplace(p.first, std::move(p.second));
  pending_.clear();
  has_pending_ = false;
}

void Gateway::handle_monitor(const std::string& name, Peer& peer) {
  std::vector<zmq::message_t> event;
  while (zmq::recv_multipart(peer.monitor, std::back_inserter(event), zmq::recv_flags::dontwait)) {
    // libzmq 4.x event: frame 1 = uint16 event id + uint32 value, frame 2 = endpoint.
    if (event.size() < 1 || event[0].size() < 6) {
      event.clear();
      continue;
    }
    uint16_t id = 0;
    uint32_t value = 0;
    std::memcpy(&id, event[0].data(), 2);
    std::memcpy(&value, static_cast<const char*>(event[0].data()) + 2, 4);
    event.clear();
    if (id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
      peer.failure_reported = false;
      continue;
    }
    std::string why;
    if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
      why = "the peer refused our key (ZAP status " + std::to_string(value) + "); is this node's public key "
            "in its authorised list?";
    else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
      why = "security handshake failed (protocol error " + std::to_string(value) +
            "); do both nodes use CURVE, with the right server key?";
    else
      why = std::string("security handshake failed (") + zmq_strerror(static_cast<int>(value)) +
            "); wrong server key, or CURVE on one side only?";
    auto n = ++counters_.handshake_failures;
    std::string text = "connection to '" + name + "' at " + peer.endpoint + " refused: " + why;
    log_drop(n, text);
    if (peer.failure_reported || !on_peer_error_) continue;
    peer.failure_reported = true;
    try {
      on_peer_error_(name, Error{"handshake", text});
    } catch (const std::exception& e) {
      log(std::string("on_peer_error threw: ") + e.what());
    } catch (...) {  // an escaping exception would terminate the process
      log("on_peer_error threw a non-standard exception");
    }
  }
}

void Gateway::fail(std::string id, std::string peer, Error error) {
  auto n = ++counters_.send_failures;
  log_drop(n, "could not send " + id + " to '" + peer + "': " + error.message);
  if (!on_send_failed_) return;
  try {
    on_send_failed_(SendFailure{std::move(id), std::move(peer), std::move(error)});
  } catch (const std::exception& e) {
    log(std::string("on_send_failed threw: ") + e.what());
  } catch (...) {  // an escaping exception would terminate the process
    log("on_send_failed threw a non-standard exception");
  }
}

void Gateway::log(const std::string& line) {
  std::string full = "gateway '" + options_.node + "': " + line;
  if (options_.log) {
    options_.log(full);
  } else {
    std::fprintf(stderr, "%s\n", full.c_str());
  }
}

void Gateway::log_drop(uint64_t n, const std::string& line) {
  if (n <= 10 || is_power_of_two(n)) log(line + " (" + std::to_string(n) + " so far)");
}

}  // namespace kaisha::transport
