#include "transport/gateway.hpp"

#include <chrono>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <iterator>

#include <poll.h>

#include <zmq_addon.hpp>

#include "runtime/messages/codec.hpp"
#include "transport/curve_keys.hpp"
#include "transport/endpoint.hpp"
#include "transport/zap_handler.hpp"

namespace kaisha::transport {

namespace {

// Inbound frames handled per poll round before looking at the other sockets
// again, so a flood of inbound traffic cannot starve ZAP and the monitors.
constexpr int kBatch = 256;

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

bool is_power_of_two(uint64_t n) { return n && !(n & (n - 1)); }

}  // namespace

Gateway::Gateway() = default;

Gateway::~Gateway() { stop(); }

void Gateway::on_receive(ReceiveFn fn) {
  if (!fn) {
    on_receive_ = nullptr;
    return;
  }
  on_receive_ = [fn = std::move(fn)](msg::Envelope env, const Sender&) { fn(std::move(env)); };
}
void Gateway::on_receive_from(ReceiveFromFn fn) { on_receive_ = std::move(fn); }
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
  if (options.send_hwm < 0 || options.recv_hwm < 0 || options.linger_ms < 0)
    return Error{"config", where + ": high-water marks and linger must not be negative"};
  if (options.max_frame_bytes == 0) return Error{"config", where + ": max_frame_bytes is 0"};
  if (options.heartbeat_ms < 0) return Error{"config", where + ": heartbeat_ms must not be negative"};

  curve_ = !options.secret_key.empty();
  std::shared_ptr<ZapAuthoriser> auth;
  if (curve_) {
    auto derived = curve_public_from_secret(options.secret_key);
    if (!derived.ok()) return Error{"config", where + ": " + derived.error().message};
    if (options.public_key.empty()) options.public_key = *derived;
    if (options.public_key != *derived)
      return Error{"config", where + ": public key does not belong to the secret key"};
    auto a = ZapAuthoriser::from_z85(options.authorised_keys);
    if (!a.ok()) return Error{"config", where + ": " + a.error().message};
    auth = std::make_shared<ZapAuthoriser>(std::move(*a));
  } else {
    if (!options.allow_plaintext)
      return Error{"config", where +
                                 ": no CURVE secret key and plaintext not allowed; "
                                 "generate keys with 'kaisha keygen' or set allow_plaintext for a "
                                 "loopback-only setup"};
    if (!is_local_endpoint(options.bind))
      return Error{"config", where +
                                 ": plaintext is only allowed on a loopback address "
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
    zmq::socket_t inbound(*ctx, zmq::socket_type::pull);
    inbound.set(zmq::sockopt::linger, options.linger_ms);
    inbound.set(zmq::sockopt::rcvhwm, options.recv_hwm);
    // Checked against the frame header, before the body is read.
    inbound.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(options.max_frame_bytes));
    if (curve_) {
      inbound.set(zmq::sockopt::curve_server, 1);
      inbound.set(zmq::sockopt::curve_secretkey, options.secret_key);
      inbound.set(zmq::sockopt::zap_domain, "kaisha");
    }
    // Watched so that cut-off peers and peers of another protocol are counted.
    const std::string inbound_mon_ep = "inproc://kaisha-gateway-inbound-monitor";
    if (zmq_socket_monitor(inbound.handle(), inbound_mon_ep.c_str(),
                           ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) != 0)
      throw zmq::error_t();
    zmq::socket_t inbound_monitor(*ctx, zmq::socket_type::pair);
    inbound_monitor.set(zmq::sockopt::linger, 0);
    inbound_monitor.connect(inbound_mon_ep);
    inbound.bind(options.bind);
    std::string ep = inbound.get(zmq::sockopt::last_endpoint);

    // Wake-ups of the I/O thread (connect, disconnect, stop); no hwm: a
    // wake-up is never refused, and each carries no data.
    const std::string wake_ep = "inproc://kaisha-gateway-wake";
    zmq::socket_t wake_in(*ctx, zmq::socket_type::pull);
    wake_in.set(zmq::sockopt::rcvhwm, 0);
    wake_in.set(zmq::sockopt::linger, 0);
    wake_in.bind(wake_ep);
    zmq::socket_t wake_out(*ctx, zmq::socket_type::push);
    wake_out.set(zmq::sockopt::sndhwm, 0);
    wake_out.set(zmq::sockopt::linger, 0);
    wake_out.connect(wake_ep);

    auto access = std::make_shared<Access>();
    access->zap = auth;
    access->key_names = options.key_names;
    for (const auto& [key, name] : options.key_names) access->bound_names.insert(name);
    {
      std::lock_guard<std::mutex> g(access_mu_);
      access_ = std::move(access);
    }
    ctx_ = std::move(ctx);
    zap_ = std::move(zap);
    inbound_ = std::move(inbound);
    inbound_monitor_ = std::move(inbound_monitor);
    wake_in_ = std::move(wake_in);
    endpoint_ = ep;
    options_ = std::move(options);
    if (curve_ && auth->size() == 0)
      log("no authorised keys configured: every peer connecting to " + ep + " will be refused");
    {
      std::lock_guard<std::mutex> g(mu_);
      wake_out_ = std::move(wake_out);
      running_ = true;
    }
    stop_ = false;
    io_ = std::thread([this] { run(); });  // thread start is the barrier zmq needs to move sockets
    return ep;
  } catch (const zmq::error_t& e) {
    zap_ = zmq::socket_t();
    inbound_monitor_ = zmq::socket_t();
    inbound_ = zmq::socket_t();
    wake_in_ = zmq::socket_t();
    ctx_.reset();
    return Error{"transport", where + ": " + e.what()};
  }
}

Status Gateway::connect(const std::string& peer_node, const std::string& endpoint, const std::string& peer_public_key) {
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
  if (outbound_.count(peer_node)) return Error{"transport", where + ": already connected to that node"};
  try {
    zmq::socket_t push(*ctx_, zmq::socket_type::push);
    push.set(zmq::sockopt::sndhwm, options_.send_hwm);
    push.set(zmq::sockopt::linger, options_.linger_ms);
    // It never receives, but every socket carries the bound.
    push.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(options_.max_frame_bytes));
    if (options_.heartbeat_ms > 0) {
      push.set(zmq::sockopt::heartbeat_ivl, options_.heartbeat_ms);
      push.set(zmq::sockopt::heartbeat_timeout, 3 * options_.heartbeat_ms);
    }
    if (curve_) {
      push.set(zmq::sockopt::curve_serverkey, peer_public_key);
      push.set(zmq::sockopt::curve_publickey, options_.public_key);
      push.set(zmq::sockopt::curve_secretkey, options_.secret_key);
    }
    // The monitor must exist before connect() so the first handshake is seen.
    std::string mon_ep = "inproc://kaisha-gateway-monitor-" + std::to_string(++monitor_seq_);
    if (zmq_socket_monitor(push.handle(), mon_ep.c_str(),
                           ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                               ZMQ_EVENT_DISCONNECTED) != 0)
      throw zmq::error_t();
    zmq::socket_t monitor(*ctx_, zmq::socket_type::pair);
    monitor.set(zmq::sockopt::linger, 0);
    monitor.connect(mon_ep);
    push.connect(endpoint);
    // Created here so a bad endpoint is reported to the caller; the I/O
    // thread adopts the monitor under mu_, which orders the hand-over.
    outbound_.emplace(peer_node, std::move(push));
    new_monitors_.emplace_back(peer_node, Monitor{endpoint, std::move(monitor)});
    wake();
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    return Error{"transport", where + ": " + e.what()};
  }
}

Status Gateway::disconnect(const std::string& peer_node) {
  std::lock_guard<std::mutex> g(mu_);
  const std::string where = "gateway disconnect from '" + peer_node + "'";
  if (!running_) return Error{"transport", where + ": gateway is not running"};
  auto it = outbound_.find(peer_node);
  if (it == outbound_.end()) return Error{"unknown_peer", where + ": no connection to that node"};
  try {
    it->second.set(zmq::sockopt::linger, 0);  // what is queued for a gone peer is worthless
  } catch (const zmq::error_t&) {
  }
  // Stop its monitor first: libzmq sends monitor events blocking, and the
  // socket's teardown (on libzmq's I/O thread) would otherwise wait forever
  // for a monitor PAIR the I/O thread here is closing, stalling every
  // connection of this gateway.
  (void)zmq_socket_monitor(it->second.handle(), nullptr, 0);
  outbound_.erase(it);
  for (auto m = new_monitors_.begin(); m != new_monitors_.end(); ++m) {
    if (m->first != peer_node) continue;
    m->second.socket.close();  // never adopted
    new_monitors_.erase(m);
    return Status::Ok();
  }
  closing_.push_back(peer_node);
  wake();
  return Status::Ok();
}

void Gateway::wake() {
  has_pending_ = true;
  try {
    zmq::message_t w(size_t(0));
    (void)wake_out_.send(w, zmq::send_flags::dontwait);  // no hwm: never refused
  } catch (const zmq::error_t&) {
  }
}

Status Gateway::send(const std::string& peer_node, const msg::Envelope& envelope) {
  // Encoding and copying outside the lock: they are the costly part.
  const std::string bytes = msg::encode(envelope);
  zmq::message_t frame(bytes.data(), bytes.size());
  auto what = [&] { return "gateway send of '" + envelope.type + "' " + envelope.id + " to '" + peer_node + "'"; };
  std::lock_guard<std::mutex> g(mu_);
  if (!running_) return Error{"transport", what() + ": gateway is not running"};
  auto it = outbound_.find(peer_node);
  if (it == outbound_.end()) return Error{"unknown_peer", what() + ": no connection to that node"};
  // Peers take the sender's name from the envelope (with CURVE, checked
  // against its key): a gateway only ever speaks as its own node.
  if (envelope.from.node != options_.node)
    return Error{"transport", what() + ": it names '" + envelope.from.node + "' as its sender, not this node '" +
                                  options_.node + "'"};
  if (bytes.size() > options_.max_frame_bytes)
    return Error{"too_large", what() + ": " + std::to_string(bytes.size()) + " bytes exceeds max_frame_bytes " +
                                  std::to_string(options_.max_frame_bytes)};
  try {
    if (it->second.send(frame, zmq::send_flags::dontwait)) {
      ++counters_.sent;
      return Status::Ok();
    }
    ++counters_.send_failures;
    return Error{"backpressure", what() + ": the queue to that node is full (send_hwm " +
                                     std::to_string(options_.send_hwm) +
                                     " reached; the peer is slow, down or not reading)"};
  } catch (const zmq::error_t& e) {
    ++counters_.send_failures;
    return Error{"transport", what() + ": " + e.what()};
  }
}

void Gateway::stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!running_) return;
    running_ = false;  // from here send() and connect() refuse
    stop_ = true;
    wake();
  }
  if (io_.joinable()) io_.join();
  {
    std::lock_guard<std::mutex> g(mu_);
    wake_out_.close();
    for (auto& m : new_monitors_) m.second.socket.close();  // never adopted
    new_monitors_.clear();
    closing_.clear();
    // Closing keeps what is queued for up to linger_ms, so it may still leave.
    outbound_.clear();
  }
  // Terminating the context waits for each closed socket's linger, which is
  // finite, so stop() returns within about linger_ms.
  ctx_.reset();
}

std::shared_ptr<const Gateway::Access> Gateway::access() const {
  std::lock_guard<std::mutex> g(access_mu_);
  return access_;
}

Status Gateway::set_keys(const std::vector<std::string>& authorised_keys,
                         const std::map<std::string, std::string>& key_names) {
  if (!curve_) return Error{"config", "gateway set_keys: this gateway runs without CURVE keys"};
  auto a = ZapAuthoriser::from_z85(authorised_keys);
  if (!a.ok()) return a.error();
  auto access = std::make_shared<Access>();
  access->zap = std::make_shared<ZapAuthoriser>(std::move(*a));
  access->key_names = key_names;
  for (const auto& [key, name] : key_names) access->bound_names.insert(name);
  std::lock_guard<std::mutex> g(access_mu_);
  access_ = std::move(access);
  return Status::Ok();
}

GatewayCounters Gateway::counters() const {
  GatewayCounters c;
  c.received = counters_.received.load();
  c.sent = counters_.sent.load();
  c.dropped_malformed = counters_.dropped_malformed.load();
  c.dropped_version = counters_.dropped_version.load();
  c.dropped_oversized = counters_.dropped_oversized.load();
  c.dropped_impostor = counters_.dropped_impostor.load();
  c.dropped_unauthorised = counters_.dropped_unauthorised.load();
  c.send_failures = counters_.send_failures.load();
  c.auth_rejected = counters_.auth_rejected.load();
  c.handshake_failures = counters_.handshake_failures.load();
  c.inbound_closed = counters_.inbound_closed.load();
  c.refused_protocol = counters_.refused_protocol.load();
  return c;
}

void Gateway::run() {
  // poll(2) on the sockets' ZMQ_FDs, not zmq::poll: zmq_poll asks every
  // socket for ZMQ_EVENTS before and after a zero-timeout first pass, one
  // poll(2) and one getpid(2) per socket each time, about twenty system calls
  // per inbound message in all, which on a virtual machine cost more than the
  // message itself. A ZMQ_FD only says "look at this socket"; it does not
  // fire again for what is already queued, so every socket is drained to
  // EAGAIN once its fd fires, and an inbound drain cut short by kBatch is
  // resumed at once.
  const int inbound_fd = inbound_.get(zmq::sockopt::fd);
  const int inbound_monitor_fd = inbound_monitor_.get(zmq::sockopt::fd);
  const int wake_fd = wake_in_.get(zmq::sockopt::fd);
  const int zap_fd = curve_ ? zap_.get(zmq::sockopt::fd) : -1;
  std::vector<zmq::message_t> parts;
  std::vector<pollfd> fds;
  std::vector<std::pair<const std::string*, Monitor*>> polled;
  bool inbound_more = true;  // messages may be queued already
  handle_inbound_monitor();  // events queued before the first poll never signal the fd
  while (!stop_.load()) {
    if (has_pending_.load()) {
      adopt_pending();
      // A monitor's PAIR connected to its socket's endpoint itself, so no
      // command ever signals its fd for the first events: read them now.
      try {
        for (auto& [name, monitor] : monitors_) handle_monitor(name, monitor);
      } catch (const zmq::error_t& e) {
        log(std::string("socket error: ") + e.what());
      }
    }
    fds.clear();
    polled.clear();
    fds.push_back({inbound_fd, POLLIN, 0});
    fds.push_back({wake_fd, POLLIN, 0});
    if (curve_) fds.push_back({zap_fd, POLLIN, 0});
    fds.push_back({inbound_monitor_fd, POLLIN, 0});
    const size_t first_monitor = fds.size();
    for (auto& [name, monitor] : monitors_) {
      fds.push_back({monitor.fd, POLLIN, 0});
      polled.emplace_back(&name, &monitor);
    }
    // Every event wakes the poll (the wake-up socket included); the timeout
    // is only a backstop.
    if (::poll(fds.data(), fds.size(), inbound_more ? 0 : 1000) < 0) {
      if (errno == EINTR) continue;
      log(std::string("poll failed: ") + std::strerror(errno));
      break;
    }
    try {
      if (fds[1].revents) {
        zmq::message_t w;
        while (wake_in_.recv(w, zmq::recv_flags::dontwait)) {
        }
      }
      if (curve_ && fds[2].revents) handle_zap();
      if (fds[first_monitor - 1].revents) handle_inbound_monitor();
      for (size_t i = 0; i < polled.size(); ++i)
        if (fds[first_monitor + i].revents) handle_monitor(*polled[i].first, *polled[i].second);
      if (fds[0].revents || inbound_more) {
        inbound_more = false;
        for (int i = 0;; ++i) {
          if (i == kBatch) {
            inbound_more = true;  // let ZAP and the monitors in, then go on
            break;
          }
          parts.clear();
          if (!zmq::recv_multipart(inbound_, std::back_inserter(parts), zmq::recv_flags::dontwait)) break;
          handle_inbound(parts);
        }
      }
    } catch (const zmq::error_t& e) {
      log(std::string("socket error: ") + e.what());
    }
  }
  inbound_.close();
  inbound_monitor_.close();
  wake_in_.close();
  if (curve_) zap_.close();
  adopt_pending();
  for (auto& [name, monitor] : monitors_) monitor.socket.close();
  monitors_.clear();
}

void Gateway::handle_inbound(std::vector<zmq::message_t>& parts) {
  // The peer's address, for the log: a frame carries it as metadata.
  const char* address = parts.empty() ? nullptr : zmq_msg_gets(parts[0].handle(), "Peer-Address");
  const std::string peer = address ? address : "?";
  if (parts.size() != 1) {
    auto n = ++counters_.dropped_malformed;
    log_drop(n, "dropped a message from " + peer + ": expected one frame [envelope], got " +
                    std::to_string(parts.size()) + " frames");
    return;
  }
  if (parts[0].size() > options_.max_frame_bytes) {
    auto n = ++counters_.dropped_oversized;
    log_drop(n, "dropped a " + std::to_string(parts[0].size()) + "-byte frame from " + peer +
                    ": above max_frame_bytes " + std::to_string(options_.max_frame_bytes));
    return;
  }
  auto env = msg::decode_envelope(parts[0].to_string_view());
  if (!env.ok()) {
    bool version = env.error().code == "version";
    auto n = version ? ++counters_.dropped_version : ++counters_.dropped_malformed;
    log_drop(n, "dropped a frame from " + peer + ": " + env.error().message);
    return;
  }
  Sender sender;
  const std::shared_ptr<const Access> acc = access();
  if (curve_) {
    // libzmq attaches the ZAP handler's user id (the Z85 key) to each frame.
    const char* user = zmq_msg_gets(parts[0].handle(), "User-Id");
    sender.key = user ? user : "";
    // Let in under an earlier list (set_keys): its connection outlived its key.
    if (!acc->zap->allows(sender.key)) {
      auto n = ++counters_.dropped_unauthorised;
      log_drop(n, "dropped a '" + env->type + "' envelope from " + peer + ": its key " + sender.key +
                      " is no longer authorised");
      return;
    }
    if (auto it = acc->key_names.find(sender.key); it != acc->key_names.end()) sender.node = it->second;
  }
  if (std::string why = impostor(*env, sender, *acc); !why.empty()) {
    auto n = ++counters_.dropped_impostor;
    log_drop(n, "dropped a '" + env->type + "' envelope from " + peer + ": " + why);
    return;
  }
  ++counters_.received;
  if (!on_receive_) return;
  try {
    on_receive_(std::move(*env), sender);
  } catch (const std::exception& e) {
    log(std::string("on_receive threw: ") + e.what());
  } catch (...) {  // an escaping exception would terminate the process
    log("on_receive threw a non-standard exception");
  }
}

std::string Gateway::impostor(const msg::Envelope& env, const Sender& sender, const Access& access) const {
  if (env.from.node.empty()) return "it names no sender";
  if (!curve_) return {};
  if (!sender.node.empty()) {
    if (env.from.node == sender.node) return {};
    return "it claims to come from '" + env.from.node + "' but was sent with the key of node '" + sender.node + "'";
  }
  if (access.bound_names.count(env.from.node))
    return "it claims to come from node '" + env.from.node + "' but was sent with another key";
  return {};
}

void Gateway::handle_inbound_monitor() {
  std::vector<zmq::message_t> event;
  while (zmq::recv_multipart(inbound_monitor_, std::back_inserter(event), zmq::recv_flags::dontwait)) {
    if (event.size() < 1 || event[0].size() < 6) {
      event.clear();
      continue;
    }
    uint16_t id = 0;
    std::memcpy(&id, event[0].data(), 2);
    const std::string where = event.size() > 1 ? event[1].to_string() : std::string("?");
    event.clear();
    if (id == ZMQ_EVENT_DISCONNECTED) {
      ++counters_.inbound_closed;
    } else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) {
      auto n = ++counters_.refused_protocol;
      log_drop(n, "refused a connection on " + where +
                      ": it speaks another protocol (a kaisha build of another wire version, or not kaisha)");
    }
  }
}

void Gateway::handle_zap() {
  std::vector<zmq::message_t> request;
  while (zmq::recv_multipart(zap_, std::back_inserter(request), zmq::recv_flags::dontwait)) {
    bool accepted = false;
    std::string client;
    auto reply = access()->zap->reply(request, &accepted, &client);
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
  // name must end with the new monitor in place.
  for (const auto& name : closing_) monitors_.erase(name);
  closing_.clear();
  for (auto& m : new_monitors_) {
    m.second.fd = m.second.socket.get(zmq::sockopt::fd);
    monitors_.insert_or_assign(m.first, std::move(m.second));
  }
  new_monitors_.clear();
  has_pending_ = false;
}

void Gateway::handle_monitor(const std::string& name, Monitor& peer) {
  std::vector<zmq::message_t> event;
  while (zmq::recv_multipart(peer.socket, std::back_inserter(event), zmq::recv_flags::dontwait)) {
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
      peer.connected = true;
      continue;
    }
    if (id == ZMQ_EVENT_DISCONNECTED) {
      // Only an established connection going away says the peer left;
      // failed handshakes are reported below.
      if (!peer.connected) continue;
      peer.connected = false;
      std::string text = "connection to '" + name + "' at " + peer.endpoint +
                         " closed (the peer stopped, crashed or stopped answering)";
      log_drop(++disconnects_, text);  // a flapping peer must not flood the log
      if (!on_peer_error_) continue;
      try {
        on_peer_error_(name, Error{"disconnected", text});
      } catch (const std::exception& e) {
        log(std::string("on_peer_error threw: ") + e.what());
      } catch (...) {
        log("on_peer_error threw a non-standard exception");
      }
      continue;
    }
    std::string why;
    if (id == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
      why = "the peer refused our key (ZAP status " + std::to_string(value) +
            "); is this node's public key "
            "in its authorised list?";
    else if (id == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
      why = "security handshake failed (protocol error " + std::to_string(value) +
            "); do both nodes use CURVE, with the right server key, and the same kaisha version?";
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
