#include "cluster/cluster_node.hpp"

#include <chrono>
#include <cstdio>

#include "actors/strategy_kit/charged_call.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/system/model_client_actor.hpp"
#include "actors/caf/scheduler_tuning.hpp"
#include "actors/caf/spawning_thread.hpp"
#include "cluster/agent_host.hpp"
#include "cluster/cluster_atoms.hpp"
#include "cluster/inline_delivery.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/messages/time_budget.hpp"
#include "runtime/store/durability.hpp"
#include "runtime/store/journal_store.hpp"
#include "transport/curve_keys.hpp"

namespace kaisha::cluster {

namespace {

constexpr const char* kNodeAgent = "node";  // the AgentRef name of a node itself

std::string seed_peer(const std::string& address) { return "seed:" + address; }

// How often a link refused at the handshake is reopened.
constexpr int64_t kRelinkMs = 1000;

// Reload requests waiting for the ticker; more are answered "busy".
constexpr size_t kMaxReloadRequests = 16;

// A node's key speaks for that node only (see gateway.hpp, Names).
std::map<std::string, std::string> key_names(const ClusterConfig& c) {
  std::map<std::string, std::string> names;
  for (const auto& n : c.nodes)
    if (!n.public_key.empty()) names[n.public_key] = n.name;
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "-" : out;
}

}  // namespace

ClusterNode::ClusterNode(NodeOptions options) : options_(std::move(options)) {
  if (options_.metrics)
    messages_ = &options_.metrics->counter("kaisha_cluster_messages_total",
                                           "Envelopes this node sent and read, by direction and type",
                                           {"direction", "type"}, 100);
}

ClusterNode::~ClusterNode() { stop(); }

Result<std::unique_ptr<ClusterNode>> ClusterNode::start(NodeOptions options) {
  std::unique_ptr<ClusterNode> node(new ClusterNode(std::move(options)));
  if (Status s = node->start_impl(); !s.ok()) return s.error();
  return node;
}

Status ClusterNode::start_impl() {
  const actors::SpawningThread spawning;  // the caller's thread may outlive the node
  auto self = options_.cluster.node(options_.name);
  if (!self.ok()) return self.error();
  self_ = *self;
  incarnation_ = options_.incarnation > 0 ? options_.incarnation : wall_ms();
  if (options_.tick_ms <= 0) options_.tick_ms = 50;

  transport::GatewayOptions g;
  g.node = self_.name;
  g.bind = self_.bind;
  g.allow_plaintext = options_.cluster.allow_plaintext;
  g.max_frame_bytes = options_.cluster.max_frame_bytes;
  g.authorised_keys = options_.cluster.authorised_keys;
  g.key_names = key_names(options_.cluster);
  g.log = [this](std::string_view line) { log(std::string(line)); };
  if (!self_.key_file.empty()) {
    auto keys = transport::load_curve_keys(self_.key_file);
    if (!keys.ok())
      return Error{"config", options_.cluster.source + ": node '" + self_.name + "': " + keys.error().message};
    if (!self_.public_key.empty() && keys->public_key != self_.public_key)
      return Error{"config", options_.cluster.source + ": node '" + self_.name + "': key file " + self_.key_file +
                                 " does not hold the public_key listed for this node"};
    g.secret_key = keys->secret_key;
    g.public_key = keys->public_key;
    self_.public_key = keys->public_key;
    secret_key_ = keys->secret_key;
  } else if (!options_.cluster.allow_plaintext) {
    return Error{"config", options_.cluster.source + ": node '" + self_.name +
                               "' has no key_file and the cluster does not allow plaintext"};
  }
  admission_ = std::make_shared<const Admission>(options_.cluster);
  gateway_.on_peer_error([this](const std::string& peer, const Error& e) {
    if (e.code != "handshake") return;
    std::lock_guard<std::mutex> g(mu_);
    refused_links_[peer] = steady_ms();
  });
  gateway_.on_receive_from([this](msg::Envelope env, const transport::Sender& sender) {
    InlineDeliveryScope inline_here;  // an ask or its answer runs its actors on this thread
    on_envelope(std::move(env), sender);
  });
  auto ep = gateway_.start(g);
  if (!ep.ok()) return ep.error();
  endpoint_ = *ep;

  msg::NodeInfo info;
  info.name = self_.name;
  // A configured port 0 only makes sense on loopback tests: advertise what was bound.
  info.endpoint = self_.advertise.size() > 2 && self_.advertise.substr(self_.advertise.size() - 2) == ":0"
                      ? endpoint_
                      : self_.advertise;
  info.public_key = self_.public_key;
  info.incarnation = incarnation_;
  info.capabilities = self_.capabilities;
  membership_ = std::make_unique<Membership>(info, options_.cluster.timeouts);

  std::shared_ptr<store::JournalStore> journal_store;
  if (options_.chat && !options_.journal_path.empty()) {
    auto opened = store::JournalStore::open(options_.journal_path,
                                            {store::durability_named(options_.company.journal.durability)});
    if (!opened.ok())
      return Error{"config",
                   "node '" + self_.name + "': journal " + options_.journal_path + ": " + opened.error().message};
    journal_store = std::move(opened).value();
  }
  if (options_.chat) {
    caf_config_ = std::make_unique<caf::actor_system_config>();
    caf_config_->set("scheduler.max-threads", 2);
    caf_config_->set("logger.console", caf::atom("none"));
    // Asks arrive from the gateway's I/O thread: wake a worker at once.
    actors::use_prompt_wakeups(*caf_config_);
    system_ = std::make_unique<caf::actor_system>(*caf_config_);
    model_client_ = std::make_unique<caf::actor>(actors::spawn_model_client(*system_, options_.chat));
    AgentHostDeps hd;
    hd.node = self_.name;
    hd.employee.model_client = *model_client_;
    if (journal_store) {
      journal_ = std::make_unique<caf::actor>(actors::spawn_journal(*system_, journal_store));
      hd.employee.journal = *journal_;
    }
    hd.employee.max_output_tokens = options_.company.employee.max_output_tokens;
    hd.employee.temperature = options_.company.employee.temperature;
    hd.employee.stream = options_.company.employee.stream;
    hd.employee.call_timeout = actors::model_call_timeout(options_.company);
    hd.send = [this](const std::string& node, const msg::Envelope& e) { return send(node, e); };
    hd.next_id = [this] { return next_id(); };
    hd.log = [this](const std::string& line) { log(line); };
    host_ = std::make_unique<caf::actor>(spawn_agent_host(*system_, std::move(hd)));
  }

  send_joins();
  ticker_ = std::thread([this] { run_ticker(); });
  return Status::Ok();
}

void ClusterNode::stop() {
  if (stopping_.exchange(true)) return;
  { std::lock_guard<std::mutex> g(tick_mu_); }
  tick_cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  gateway_.stop();  // no more inbound envelopes, so nothing reaches the host any more
  if (system_) {
    caf::scoped_actor self{*system_};
    if (host_) self->send_exit(*host_, caf::exit_reason::user_shutdown);
    if (model_client_) self->send_exit(*model_client_, caf::exit_reason::user_shutdown);
    if (journal_) self->send_exit(*journal_, caf::exit_reason::user_shutdown);  // commits what is queued
  }
  host_.reset();
  model_client_.reset();
  journal_.reset();
  system_.reset();
  caf_config_.reset();
}

void ClusterNode::add_listener(Listener listener) {
  std::lock_guard<std::mutex> g(mu_);
  listeners_.push_back(std::move(listener));
}

void ClusterNode::handle(const std::string& type, Handler handler) {
  handle(type, SenderHandler([h = std::move(handler)](const msg::Envelope& env, const transport::Sender&) {
           if (h) h(env);
         }));
}

void ClusterNode::handle(const std::string& type, SenderHandler handler) {
  std::lock_guard<std::mutex> g(mu_);
  handlers_[type] = std::move(handler);
}

std::shared_ptr<const Admission> ClusterNode::admission() const {
  std::lock_guard<std::mutex> g(mu_);
  return admission_;
}

Result<ConfigChange> ClusterNode::reload() {
  auto next = load_cluster_config(options_.cluster.source);
  if (!next.ok()) {
    std::lock_guard<std::mutex> g(mu_);
    last_reload_ = "refused: " + next.error().message;
    log("reload refused, membership kept: " + next.error().message);
    return next.error();
  }
  return reload(std::move(next).value());
}

Result<ConfigChange> ClusterNode::reload(ClusterConfig next) {
  std::lock_guard<std::mutex> one_at_a_time(reload_mu_);
  auto refused = [&](const Error& e) -> Error {
    std::lock_guard<std::mutex> g(mu_);
    last_reload_ = "refused: " + e.message;
    log("reload refused, membership kept: " + e.message);
    return e;
  };
  const std::shared_ptr<const Admission> now = admission();
  auto change = plan_reload(now->config(), next, self_.name);
  if (!change.ok()) return refused(change.error());
  // Keys first: from here on a removed key's handshakes and frames are refused.
  if (curve())
    if (Status s = gateway_.set_keys(next.authorised_keys, key_names(next)); !s.ok())
      return refused(Error{"config", next.source + ": " + s.error().message});
  auto admission = std::make_shared<const Admission>(next, *now);
  std::vector<MembershipEvent> events;
  {
    std::lock_guard<std::mutex> g(mu_);
    admission_ = admission;
    for (const auto& names : {change->removed, change->rekeyed})
      for (const auto& name : names) {
        for (auto& e : membership_->remove(name)) events.push_back(e);
        // Our link to its old life goes too; a new one opens when the holder
        // of the listed key is heard from.
        if (connected_.erase(name)) (void)gateway_.disconnect(name);
      }
    for (const auto& names : {change->rekeyed, change->changed})
      for (const auto& name : names) {
        const Member* known = membership_->find(name);
        if (!known) continue;
        auto info = admission->member_info(known->info, &known->info, false);
        if (!info.ok()) continue;
        membership_->relist(*info);
        if (known->state != MemberState::gone) ensure_connected(known->info);  // reconnects if it moved
      }
    ++reloads_;
    last_reload_ = "applied: added " + joined(change->added) + "; removed " + joined(change->removed) + "; re-keyed " +
                   joined(change->rekeyed) + "; changed " + joined(change->changed);
    log("reloaded " + next.source + ": " + last_reload_.substr(9));
  }
  apply(events);
  return change;
}

std::vector<Member> ClusterNode::members() const {
  std::lock_guard<std::mutex> g(mu_);
  return membership_->members();
}

std::optional<Member> ClusterNode::member(const std::string& name) const {
  std::lock_guard<std::mutex> g(mu_);
  const Member* m = membership_->find(name);
  if (!m) return std::nullopt;
  return *m;
}

std::string ClusterNode::next_id() {
  return self_.name + "-" + std::to_string(incarnation_) + "-" + std::to_string(++seq_);
}

Status ClusterNode::send(const std::string& node, const msg::Envelope& envelope) {
  if (messages_) messages_->with({"out", envelope.type}).add();
  return gateway_.send(node, envelope);
}

void ClusterNode::request(const std::string& node, msg::Envelope envelope, int64_t timeout_ms,
                          PendingRequests::Callback done) {
  if (envelope.id.empty()) envelope.id = next_id();
  msg::set_time_budget(envelope, timeout_ms, wall_ms());
  const int64_t deadline = timeout_ms > 0 ? steady_ms() + timeout_ms : 0;
  {
    std::lock_guard<std::mutex> g(mu_);
    const Member* m = membership_->find(node);
    if (m && m->state == MemberState::down) {
      done(Error{"node_down", "node '" + node + "' is down"});
      return;
    }
  }
  const std::string id = envelope.id;
  pending_.add(id, node, deadline, std::move(done));
  if (messages_) messages_->with({"out", envelope.type}).add();
  if (Status s = gateway_.send(node, envelope); !s.ok()) pending_.fail(id, s.error());
}

void ClusterNode::ask_status(const std::string& node, int64_t timeout_ms, std::function<void(Result<json>)> done) {
  msg::Envelope env = msg::wrap(msg::StatusRequest{}, {self_.name, "node"}, {node, "node"}, next_id());
  request(node, std::move(env), timeout_ms, [done = std::move(done)](Result<msg::Envelope> reply) {
    if (!reply.ok()) return done(reply.error());
    auto status = msg::unwrap<msg::ClusterStatus>(*reply);
    if (!status.ok()) return done(status.error());
    done(std::move(status->status));
  });
}

Status ClusterNode::connect_client(const std::string& name, const std::string& endpoint,
                                   const std::string& public_key) {
  if (std::string why = admission()->client_name_refusal(name); !why.empty())
    return Error{"refused", "cannot answer a client named '" + name + "': " + why};
  std::lock_guard<std::mutex> g(mu_);
  auto it = clients_.find(name);
  if (it != clients_.end()) {
    if (it->second.endpoint == endpoint && it->second.key == public_key) {
      it->second.last_used = ++client_uses_;
      return Status::Ok();
    }
    (void)gateway_.disconnect(name);
    clients_.erase(it);
  }
  // Each client connection holds a socket and a file descriptor: bounded.
  while (!clients_.empty() && clients_.size() >= static_cast<size_t>(admission_->config().max_clients)) {
    auto oldest = clients_.begin();
    for (auto c = clients_.begin(); c != clients_.end(); ++c)
      if (c->second.last_used < oldest->second.last_used) oldest = c;
    (void)gateway_.disconnect(oldest->first);
    clients_.erase(oldest);
  }
  if (Status s = gateway_.connect(name, endpoint, public_key); !s.ok()) return s;
  clients_[name] = Client{endpoint, public_key, ++client_uses_};
  return Status::Ok();
}

json ClusterNode::status() const {
  json members = json::array();
  for (const auto& m : this->members()) {
    members.push_back({{"name", m.info.name},
                       {"state", to_string(m.state)},
                       {"endpoint", m.info.endpoint},
                       {"incarnation", m.info.incarnation},
                       {"models", m.info.capabilities.models},
                       {"tags", m.info.capabilities.tags},
                       {"resource_units", m.info.capabilities.resource_units},
                       {"ceo", m.info.capabilities.ceo}});
  }
  const auto c = gateway_.counters();
  const auto inl = inline_delivery_stats();
  json refused = json::object();
  for (const auto& [kind, n] : refusals_.snapshot()) refused[kind] = n;
  json reload;
  {
    std::lock_guard<std::mutex> g(mu_);
    reload = {{"applied", reloads_}, {"last", last_reload_}};
  }
  return json{{"node", self_.name},
              {"endpoint", endpoint_},
              {"incarnation", incarnation_},
              {"members", members},
              {"gateway",
               {{"received", c.received},
                {"sent", c.sent},
                {"dropped_malformed", c.dropped_malformed},
                {"dropped_version", c.dropped_version},
                {"dropped_oversized", c.dropped_oversized},
                {"dropped_impostor", c.dropped_impostor},
                {"dropped_unauthorised", c.dropped_unauthorised},
                {"send_failures", c.send_failures},
                {"auth_rejected", c.auth_rejected},
                {"handshake_failures", c.handshake_failures},
                {"inbound_closed", c.inbound_closed},
                {"refused_protocol", c.refused_protocol}}},
              {"refused", refused},
              {"heartbeats_read", heartbeats_read()},
              {"inline_delivery",
               {{"inline_runs", inl.inline_runs},
                {"handed_over", inl.handed_over},
                {"yielded", inl.yielded},
                {"max_runs_per_envelope", inl.max_runs_per_envelope}}},
              {"reload", reload}};
}

void ClusterNode::set_status_extra(std::function<json()> extra) {
  std::lock_guard<std::mutex> g(mu_);
  status_extra_ = std::move(extra);
}

void ClusterNode::serve_status(const msg::Envelope& env, bool from_member) {
  auto req = msg::unwrap<msg::StatusRequest>(env);
  if (!req.ok()) return log("bad status request from '" + env.from.node + "': " + req.error().message);
  if (!from_member)
    if (Status s = connect_client(env.from.node, req->reply_endpoint, req->reply_public_key); !s.ok())
      return log("cannot answer the status request of '" + env.from.node + "': " + s.error().message);
  std::function<json()> extra;
  {
    std::lock_guard<std::mutex> g(mu_);
    extra = status_extra_;
  }
  msg::ClusterStatus st;
  st.status = status();
  if (extra) {
    json more = extra();  // named: items() of a temporary would dangle in the loop
    for (auto& [k, v] : more.items()) st.status[k] = v;
  }
  // From this node by name: a client addresses "whoever is at that address".
  (void)send(env.from.node, msg::wrap(st, msg::AgentRef{self_.name, env.to.name}, env.from, next_id(), env.id));
}

msg::Envelope ClusterNode::envelope_to(const std::string& node, const std::string& type, uint32_t version,
                                       std::string payload) {
  msg::Envelope e;
  e.id = next_id();
  e.from = {self_.name, kNodeAgent};
  e.to = {node, kNodeAgent};
  e.type = type;
  e.version = version;
  e.payload = std::move(payload);
  return e;
}

void ClusterNode::refuse(const std::string& kind, const msg::Envelope& env, const std::string& why) {
  const uint64_t n = refusals_.add(kind);
  // Few lines however many arrive: the first ten, then every power of two.
  if (n <= 10 || (n & (n - 1)) == 0)
    log("refused a '" + env.type + "' envelope from '" + env.from.node + "' (" + kind + ", " + std::to_string(n) +
        " so far): " + why);
}

std::string ClusterNode::client_refusal(const msg::Envelope& env, const transport::Sender& sender,
                                        const std::string& reply_public_key, std::string* kind) const {
  if (std::string why = admission()->client_name_refusal(env.from.node); !why.empty()) {
    *kind = "client_name";
    return why;
  }
  // Answers go to the key that asked, so a client cannot have a task's
  // progress sent to someone else's key.
  if (!secret_key_.empty() && reply_public_key != sender.key) {
    *kind = "client_reply_key";
    return "its reply key is not the key it connected with";
  }
  return {};
}

template <class Request>
void ClusterNode::refuse_client_request(const msg::Envelope& env, const std::string& code, const std::string& message) {
  auto req = msg::unwrap<Request>(env);
  if (!req.ok()) return;
  if (Status s = connect_client(env.from.node, req->reply_endpoint, req->reply_public_key); !s.ok()) return;
  (void)send(env.from.node,
             msg::wrap(msg::RequestFailed{code, message}, {self_.name, "CEO"}, env.from, next_id(), env.id));
}

void ClusterNode::fail_client_request(const msg::Envelope& env, const std::string& code, const std::string& message) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!clients_.count(env.from.node)) return;
  }
  (void)send(env.from.node,
             msg::wrap(msg::RequestFailed{code, message}, {self_.name, "node"}, env.from, next_id(), env.id));
}

void ClusterNode::on_reload_request(const msg::Envelope& env, const transport::Sender& sender) {
  auto req = msg::unwrap<msg::ReloadRequest>(env);
  if (!req.ok()) {
    fail_client_request(env, req.error().code, req.error().message);
    return log("bad reload request from '" + env.from.node + "': " + req.error().message);
  }
  std::string kind;
  if (std::string why = client_refusal(env, sender, req->reply_public_key, &kind); !why.empty())
    return refuse(kind, env, why);
  const auto adm = admission();
  if (!adm->may_reload(sender.key, curve())) {
    refuse("not_an_operator", env, "only operator keys (cluster.operator_keys) may ask for a reload");
    msg::ReloadResult r;
    r.error = "refused: only operator keys (cluster.operator_keys in " + adm->config().source + ") may ask node '" +
              self_.name + "' to reload";
    if (connect_client(env.from.node, req->reply_endpoint, req->reply_public_key).ok())
      (void)send(env.from.node, msg::wrap(r, {self_.name, "node"}, env.from, next_id(), env.id));
    return;
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    if (reload_requests_.size() < kMaxReloadRequests) {
      reload_requests_.push_back(env);  // the ticker's next round serves it
      return;
    }
  }
  refuse_client_request<msg::ReloadRequest>(env, "busy", "node '" + self_.name + "' has reloads waiting; try again");
}

void ClusterNode::serve_reload(const msg::Envelope& env) {
  auto req = msg::unwrap<msg::ReloadRequest>(env);
  if (!req.ok()) return;
  auto change = reload();
  msg::ReloadResult r;
  r.ok = change.ok();
  if (change.ok()) {
    r.added = change->added;
    r.removed = change->removed;
    r.rekeyed = change->rekeyed;
    r.changed = change->changed;
  } else {
    r.error = change.error().message;
  }
  if (Status s = connect_client(env.from.node, req->reply_endpoint, req->reply_public_key); !s.ok())
    return log("cannot answer the reload request of '" + env.from.node + "': " + s.error().message);
  (void)send(env.from.node, msg::wrap(r, {self_.name, "node"}, env.from, next_id(), env.id));
}

void ClusterNode::on_envelope(msg::Envelope env, const transport::Sender& sender) {
  if (messages_) messages_->with({"in", env.type}).add();
  // The listed node this comes from, as the transport established it; "" =
  // a client.
  const std::shared_ptr<const Admission> adm = admission();
  const std::string node = adm->sending_node(env.from.node, sender.node, curve());
  // Whatever a listed node sends shows it alive: its heartbeats may wait
  // behind its own envelopes on the one stream between two nodes.
  if (!node.empty() && env.type != msg::Heartbeat::kType) {
    std::lock_guard<std::mutex> g(mu_);
    membership_->touch(node, steady_ms());
  }
  if (!env.correlation.empty()) {
    if (node.empty()) return refuse("not_a_node", env, "only nodes answer requests");
    // Replies end requests; one that matches none is late or forged.
    if (!pending_.complete(env))
      log("dropped a reply from '" + env.from.node + "' to no pending request (" + env.type + ")");
    return;
  }
  if (env.type == msg::Heartbeat::kType) {
    if (node.empty()) return refuse("not_a_node", env, "only listed nodes send heartbeats");
    auto hb = msg::unwrap<msg::Heartbeat>(env);
    if (!hb.ok()) return log("bad heartbeat from '" + env.from.node + "': " + hb.error().message);
    if (hb->sender.name != node) return refuse("forged_sender", env, "the heartbeat names another sender");
    if (hb->members.size() > adm->max_gossip())
      return refuse(
          "oversized_gossip", env,
          std::to_string(hb->members.size()) + " members listed, the cluster has " + std::to_string(adm->max_gossip()));
    heartbeats_read_.fetch_add(1, std::memory_order_relaxed);
    heard_from(hb->sender, true);
    for (const auto& m : hb->members) heard_from(m, false);
    return;
  }
  if (env.type == msg::JoinRequest::kType) {
    if (node.empty()) return refuse("not_a_node", env, "only listed nodes join");
    auto join = msg::unwrap<msg::JoinRequest>(env);
    if (!join.ok()) return log("bad join request from '" + env.from.node + "': " + join.error().message);
    if (join->node.name != node) return refuse("forged_sender", env, "the join request names another node");
    heard_from(join->node, true);
    send_heartbeats();  // the answer: our view of the membership, to everyone
    return;
  }
  if (env.type == msg::SpawnAgent::kType || env.type == msg::StopAgent::kType || env.type == msg::AskRequest::kType) {
    // Employees run on this node's model providers, charged to the CEO
    // node's ledger: only the CEO node directs them.
    if (node.empty()) return refuse("not_a_node", env, "only the CEO node directs employees");
    if (!adm->may_direct_agents(node)) return refuse("not_the_ceo", env, "only the CEO node directs employees");
    if (host_) {
      deliver(*host_, caf::make_message(envelope_atom::value, std::move(env)));
    } else if (env.type == msg::AskRequest::kType) {
      msg::Envelope reply = msg::wrap(msg::RequestFailed{"unsupported", "node '" + self_.name + "' hosts no agents"},
                                      msg::AgentRef{self_.name, env.to.name}, env.from, next_id(), env.id, env.trace);
      (void)send(env.from.node, reply);
    }
    return;
  }
  if (env.type == msg::StatusRequest::kType) {
    auto req = msg::unwrap<msg::StatusRequest>(env);
    if (!req.ok()) return log("bad status request from '" + env.from.node + "': " + req.error().message);
    std::string kind;
    if (node.empty())
      if (std::string why = client_refusal(env, sender, req->reply_public_key, &kind); !why.empty())
        return refuse(kind, env, why);
    return serve_status(env, !node.empty());
  }
  if (env.type == msg::ReloadRequest::kType) return on_reload_request(env, sender);
  if (env.type == msg::SubmitTask::kType || env.type == msg::CancelTask::kType) {
    std::string reply_key, bad;
    if (env.type == msg::SubmitTask::kType) {
      auto task = msg::unwrap<msg::SubmitTask>(env);
      if (task.ok())
        reply_key = task->reply_public_key;
      else
        bad = task.error().message;
    } else {
      auto cancel = msg::unwrap<msg::CancelTask>(env);
      if (cancel.ok())
        reply_key = cancel->reply_public_key;
      else
        bad = cancel.error().message;
    }
    if (!bad.empty()) {
      // E.g. a newer client's message version: say so if we can reach it.
      fail_client_request(env, "bad_request", "node '" + self_.name + "': " + bad);
      return log("bad " + env.type + " from '" + env.from.node + "': " + bad);
    }
    std::string kind;
    if (std::string why = client_refusal(env, sender, reply_key, &kind); !why.empty()) return refuse(kind, env, why);
    // Operators run no tasks: a key is one identity with its own rights.
    if (env.type == msg::SubmitTask::kType && adm->is_operator(sender.key)) {
      refuse("operator_submit", env, "operator keys do not submit tasks");
      return refuse_client_request<msg::SubmitTask>(env, "forbidden",
                                                    "operator keys administer the cluster; they do not submit tasks");
    }
  }
  SenderHandler handler;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = handlers_.find(env.type);
    if (it != handlers_.end()) handler = it->second;
  }
  if (handler) return handler(env, sender);
  if (env.type == msg::SubmitTask::kType || env.type == msg::CancelTask::kType) {
    // Never leave a client waiting on a task nobody will run.
    const NodeConfig* ceo = adm->config().ceo_node();
    const std::string where = ceo ? ceo->name + "' at " + ceo->advertise : std::string("?'");
    if (env.type == msg::SubmitTask::kType) {
      if (self_.capabilities.ceo)
        return refuse_client_request<msg::SubmitTask>(env, "starting",
                                                      "the CEO node '" + self_.name + "' is still starting; try again");
      return refuse_client_request<msg::SubmitTask>(
          env, "not_ceo", "node '" + self_.name + "' does not run the CEO; submit to node '" + where);
    }
    return refuse_client_request<msg::CancelTask>(
        env, self_.capabilities.ceo ? "unknown_task" : "not_ceo",
        self_.capabilities.ceo ? "the CEO node '" + self_.name + "' is still starting and runs no task yet"
                               : "node '" + self_.name + "' runs no tasks; cancel on node '" + where);
  }
  refuse("unserved_type", env, "this node does not serve '" + env.type + "'");
  fail_client_request(env, "unsupported", "node '" + self_.name + "' does not serve '" + env.type + "' messages");
}

void ClusterNode::heard_from(const msg::NodeInfo& claimed, bool direct) {
  if (claimed.name == self_.name) return;
  std::vector<MembershipEvent> events;
  bool overridden = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    const Member* known = membership_->find(claimed.name);
    auto admitted = admission_->member_info(claimed, known ? &known->info : nullptr, direct, &overridden);
    if (!admitted.ok()) {
      const uint64_t n = refusals_.add(admitted.error().code);
      if (n <= 10 || (n & (n - 1)) == 0)
        log("ignored member '" + claimed.name + "' (" + std::to_string(n) + " so far): " + admitted.error().message);
      return;
    }
    const msg::NodeInfo& info = *admitted;
    events = direct ? membership_->heard_from(info, steady_ms()) : membership_->learn(info, steady_ms());
    if (direct) joined_ = true;
    const Member* m = membership_->find(info.name);
    if (m) ensure_connected(m->info);
  }
  // A listed node's claim that disagrees with cluster.yaml changed nothing.
  if (overridden) {
    const uint64_t n = refusals_.add("member_mismatch");
    if (n <= 10 || (n & (n - 1)) == 0)
      log("what was said of member '" + claimed.name + "' disagrees with " + options_.cluster.source +
          "; the file's address, key and capabilities stand (" + std::to_string(n) + " so far)");
  }
  apply(events);
}

// Called with mu_ held.
void ClusterNode::ensure_connected(const msg::NodeInfo& info) {
  auto it = connected_.find(info.name);
  if (it != connected_.end() && it->second == info.endpoint) return;
  if (it != connected_.end()) {
    (void)gateway_.disconnect(info.name);  // it moved: a restart on another port
    connected_.erase(it);
  }
  // Two DEALERs to one peer would share our routing id there, and its ROUTER
  // would hand the connection back and forth between them: the member
  // connection replaces the seed connection to the same address.
  if (seeds_connected_.erase(seed_peer(info.endpoint))) (void)gateway_.disconnect(seed_peer(info.endpoint));
  if (Status s = gateway_.connect(info.name, info.endpoint, info.public_key); !s.ok()) {
    log("cannot connect to member '" + info.name + "': " + s.error().message);
    return;
  }
  connected_[info.name] = info.endpoint;
}

void ClusterNode::apply(const std::vector<MembershipEvent>& events) {
  if (events.empty()) return;
  std::vector<Listener> listeners;
  {
    std::lock_guard<std::mutex> g(mu_);
    listeners = listeners_;
  }
  for (const auto& e : events) {
    const std::string n = e.node;
    log(std::string("member '") + n + "' " + to_string(e.kind) + " (incarnation " + std::to_string(e.incarnation) +
        ")");
    // Listeners first, so that what ran there is marked lost before the
    // requests to it fail and their callers react.
    for (auto& l : listeners) l(e);
    if (e.kind == MembershipEvent::Kind::down)
      pending_.fail_node(n, "node '" + n + "' is down (no heartbeat for " +
                                std::to_string(options_.cluster.timeouts.down_after_ms) + " ms)");
    if (e.kind == MembershipEvent::Kind::restarted)
      pending_.fail_node(n, "node '" + n + "' restarted; what it was doing is lost");
    if (e.kind == MembershipEvent::Kind::removed)
      pending_.fail_node(n, "node '" + n + "' was removed from the cluster (or re-keyed) by a reload");
  }
}

void ClusterNode::run_ticker() {
  int64_t last_heartbeat = 0;
  while (!stopping_.load()) {
    {
      std::unique_lock<std::mutex> lk(tick_mu_);
      tick_cv_.wait_for(lk, std::chrono::milliseconds(options_.tick_ms), [this] { return stopping_.load(); });
    }
    if (stopping_.load()) break;
    std::vector<msg::Envelope> reloads;
    {
      std::lock_guard<std::mutex> g(mu_);
      reloads.swap(reload_requests_);
    }
    for (const auto& r : reloads) serve_reload(r);
    const int64_t now = steady_ms();
    std::vector<MembershipEvent> events;
    bool lonely = false;
    {
      std::lock_guard<std::mutex> g(mu_);
      events = membership_->tick(now);
      lonely = !joined_ ||
               (membership_->peers(MemberState::alive).empty() && membership_->peers(MemberState::suspect).empty());
    }
    apply(events);
    retry_refused_links(now);
    if (now - last_heartbeat >= options_.cluster.timeouts.heartbeat_ms) {
      last_heartbeat = now;
      send_heartbeats();
      if (lonely) send_joins();
    }
    pending_.expire(now);
  }
}

void ClusterNode::retry_refused_links(int64_t now_ms) {
  std::lock_guard<std::mutex> g(mu_);
  for (auto it = refused_links_.begin(); it != refused_links_.end();) {
    if (now_ms - it->second < kRelinkMs) {
      ++it;
      continue;
    }
    const std::string peer = it->first;
    it = refused_links_.erase(it);
    if (auto c = connected_.find(peer); c != connected_.end()) {
      (void)gateway_.disconnect(peer);
      connected_.erase(c);
      const Member* m = membership_->find(peer);
      if (m && m->state != MemberState::gone) ensure_connected(m->info);
    } else if (seeds_connected_.erase(peer)) {
      (void)gateway_.disconnect(peer);  // send_joins opens it again while this node is alone
    }
  }
}

void ClusterNode::send_heartbeats() {
  msg::Heartbeat hb;
  std::vector<std::string> targets;
  {
    std::lock_guard<std::mutex> g(mu_);
    hb.sender = membership_->self();
    hb.members = membership_->gossip();
    // Down members too: a link that comes back up brings them back.
    for (const auto& m : membership_->members())
      if (m.info.name != self_.name && connected_.count(m.info.name)) targets.push_back(m.info.name);
  }
  const std::string payload = msg::encode(hb);
  for (const auto& t : targets) (void)send(t, envelope_to(t, msg::Heartbeat::kType, msg::Heartbeat::kVersion, payload));
}

void ClusterNode::send_joins() {
  msg::JoinRequest join;
  {
    std::lock_guard<std::mutex> g(mu_);
    join.node = membership_->self();
  }
  const std::string payload = msg::encode(join);
  const std::shared_ptr<const Admission> adm = admission();
  for (const auto& seed : adm->config().seeds) {
    if (seed.address == join.node.endpoint || seed.address == self_.advertise) continue;
    std::string peer = seed_peer(seed.address);
    {
      std::lock_guard<std::mutex> g(mu_);
      // Already connected to the member at that address: join through it.
      bool member = false;
      for (const auto& [name, endpoint] : connected_)
        if (endpoint == seed.address) {
          peer = name;
          member = true;
        }
      if (member) {
        (void)send(peer, envelope_to(peer, msg::JoinRequest::kType, msg::JoinRequest::kVersion, payload));
        continue;
      }
      if (!seeds_connected_.count(peer)) {
        if (Status s = gateway_.connect(peer, seed.address, adm->config().seed_key(seed)); !s.ok()) {
          log("cannot connect to seed " + seed.address + ": " + s.error().message);
          continue;
        }
        seeds_connected_.insert(peer);
      }
    }
    (void)send(peer, envelope_to(peer, msg::JoinRequest::kType, msg::JoinRequest::kVersion, payload));
  }
}

void ClusterNode::log(const std::string& line) const {
  std::string full = "node '" + options_.name + "': " + line;
  if (options_.log)
    options_.log(full);
  else
    std::fprintf(stderr, "%s\n", full.c_str());
}

}  // namespace kaisha::cluster
