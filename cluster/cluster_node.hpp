// ClusterNode: one node of a company spread over several machines. It owns
// the node's gateway (transport::Gateway), its membership table, the
// requests it has sent and not yet seen answered, and the employees other
// nodes asked it to host.
//
// Admission (admission.hpp). Membership is cluster.yaml: only listed nodes
// join, heartbeat, gossip and answer, each known by the key, address and
// capabilities the file gives it; only the CEO node spawns, stops and asks
// employees; clients only submit, cancel their own tasks and ask for status,
// under a name that is no node's and with replies to their own key;
// operators ask for status and reloads. Who sent an envelope is what the
// gateway authenticated (transport::Sender), not what it claims. Every
// refusal is counted per kind and shown in status() under "refused"; the
// node serves on. A heartbeat may carry at most one entry per listed node,
// and at most cluster.max_clients client connections stay open.
//
// Membership. At start the node connects to its seeds and sends each a
// JoinRequest (announcing its endpoint, key, capabilities and incarnation)
// until some node answers. Every heartbeat_ms it sends a Heartbeat carrying
// its whole membership view to every other member, so nodes learn of each
// other through any one of them. The failure detector (membership.hpp) runs
// every tick_ms: a silent member becomes suspect, then down. A restarted node
// joins again under its name with a higher incarnation.
//
// Requests. request() sends an envelope and guarantees exactly one answer:
// the reply, a "timeout" at the deadline, "node_down" as soon as the target
// is declared down (or is seen restarted), or the send failure. Nothing ever
// waits on a dead peer.
//
// Reload. reload() re-reads cluster.yaml (config_reload.hpp says what may
// change live) and applies it at once: the gateway's keys, admission, and
// the membership. A removed or re-keyed node is `gone` (its links refused
// from then on, counted by the gateway as dropped_unauthorised, its
// employees re-hired through the `removed` event), an added one may join,
// a moved one is reached at its new address. A file that does not parse or
// may not be applied live changes nothing. `kaisha cluster reload` requests
// (operators only) are run on the ticker thread, never on the gateway's.
//
// Hosting. spawn_agent / stop_agent / ask_request envelopes are served by an
// actor of the node's own actor system: hosted employees make their model
// calls through this node's model client (its own providers, e.g. its Ollama).
//
// Threads: the gateway's I/O thread delivers envelopes, a ticker thread sends
// heartbeats and runs the detector. A link the peer refused at the
// handshake (it does not list this node's key yet) is reopened every second,
// so a node added to the file joins once the others reload it. Callbacks (listeners, handlers, request
// callbacks) run on those threads and must hand work on quickly. Every public
// method is thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cluster/admission.hpp"
#include "runtime/cluster/cluster_config.hpp"
#include "runtime/cluster/config_reload.hpp"
#include "runtime/cluster/refusal_counts.hpp"
#include "runtime/cluster/membership.hpp"
#include "runtime/cluster/pending_requests.hpp"
#include "runtime/company/chat_client.hpp"
#include "runtime/config/config.hpp"
#include "runtime/telemetry/metrics_registry.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/envelope.hpp"
#include "transport/gateway.hpp"

namespace caf {
class actor_system;
class actor_system_config;
class actor;
}  // namespace caf

namespace kaisha::cluster {

struct NodeOptions {
  ClusterConfig cluster;
  std::string name;  // an entry of cluster.nodes
  int64_t tick_ms = 50;
  int64_t incarnation = 0;  // 0 = the start time in ms, which grows across restarts
  // Hosted employees' model calls; null = this node hosts no employees.
  std::shared_ptr<company::ChatClient> chat;
  config::Config company;  // employee settings (max_output_tokens, temperature, retry)
  // This node's own SQLite journal: the steps of the employees it hosts, under
  // their CEO's session and task ids, so what a worker did survives it and the
  // CEO node alike. "" = hosted employees journal nothing here.
  std::string journal_path;
  std::function<void(const std::string&)> log;  // stderr when unset
  // Where the node counts the envelopes it sends and reads, by type
  // (kaisha_cluster_messages_total); null: not counted. Must outlive the node.
  telemetry::MetricsRegistry* metrics = nullptr;
};

class ClusterNode {
 public:
  using Listener = std::function<void(const MembershipEvent&)>;
  using Handler = std::function<void(const msg::Envelope&)>;
  // A handler that also sees who sent the envelope, as the gateway
  // authenticated it (e.g. to tie a task to the key that submitted it).
  using SenderHandler = std::function<void(const msg::Envelope&, const transport::Sender&)>;

  // Loads the node's key, binds its gateway, starts hosting, joins via seeds.
  static Result<std::unique_ptr<ClusterNode>> start(NodeOptions options);
  ~ClusterNode();  // stop()s
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // Leaves: stops heartbeats, hosted employees and the gateway. Idempotent.
  void stop();

  const std::string& name() const { return options_.name; }
  const std::string& endpoint() const { return endpoint_; }
  const NodeOptions& options() const { return options_; }
  int64_t incarnation() const { return incarnation_; }

  // Called for every membership change (joined, restarted, suspected,
  // recovered, down), before the node fails its pending requests to a node
  // that is down or restarted.
  void add_listener(Listener listener);
  // Serves envelopes of `type` addressed to this node (submit_task, ...).
  void handle(const std::string& type, Handler handler);
  void handle(const std::string& type, SenderHandler handler);

  // Re-reads cluster.yaml (options().cluster.source) and applies it; see
  // Reload above. Thread-safe; reloads run one at a time. Errors (code
  // "config") are the file's own `file:line: key: what` or name the key that
  // cannot change live; the running membership is then kept.
  Result<ConfigChange> reload();
  // The same with a configuration already read (tests, embedders).
  Result<ConfigChange> reload(ClusterConfig next);
  // Who may do what, as the cluster.yaml in force says. Never null.
  std::shared_ptr<const Admission> admission() const;
  // Whether this node runs with CURVE keys (senders are authenticated).
  bool curve() const { return !secret_key_.empty(); }

  // Counts and logs a refused envelope; the node serves on.
  void refuse(const std::string& kind, const msg::Envelope& env, const std::string& why);
  // Answers a client's request `env` with RequestFailed{code, message}, if
  // the node holds a connection to that client (a failed decode leaves no
  // reply address otherwise).
  void fail_client_request(const msg::Envelope& env, const std::string& code, const std::string& message);

  std::vector<Member> members() const;
  std::optional<Member> member(const std::string& name) const;

  // A fresh envelope id, unique across nodes and restarts.
  std::string next_id();

  // One-way send to a member (or a client this node was connected to).
  Status send(const std::string& node, const msg::Envelope& envelope);
  // A request: `done` is called exactly once (see above), with "timeout"
  // once `timeout_ms` has passed on this node's steady clock; 0 = no timeout
  // (node_down still ends it). The envelope carries the same budget to the
  // receiver (Envelope::budget_ms).
  void request(const std::string& node, msg::Envelope envelope, int64_t timeout_ms, PendingRequests::Callback done);
  // Asks member `node` for its status() (what `kaisha cluster status` shows
  // of it: its gateway's counters among it); `done` as for request().
  void ask_status(const std::string& node, int64_t timeout_ms, std::function<void(Result<json>)> done);

  // Opens (or reopens) a connection to a client that is not a member, e.g.
  // `kaisha submit`, so replies can reach it. Refuses a node's name; closes
  // the least recently used client connection beyond cluster.max_clients.
  Status connect_client(const std::string& name, const std::string& endpoint, const std::string& public_key);

  // {node, endpoint, incarnation, members: [{name, state, endpoint, incarnation,
  // models, tags, resource_units, ceo}], gateway: {counters}, refused: {kind: n},
  // heartbeats_read, inline_delivery: {InlineDeliveryStats}}.
  json status() const;
  // Heartbeats from listed nodes read and accepted since the node started.
  uint64_t heartbeats_read() const { return heartbeats_read_.load(std::memory_order_relaxed); }
  // Adds `extra()`'s keys (e.g. agents and resource use on the CEO node) to
  // the status this node sends to `kaisha cluster status`.
  void set_status_extra(std::function<json()> extra);
  transport::GatewayCounters counters() const { return gateway_.counters(); }
  // Refusals so far, per kind (see Admission above).
  std::map<std::string, uint64_t> refusals() const { return refusals_.snapshot(); }

 private:
  explicit ClusterNode(NodeOptions options);
  Status start_impl();
  void on_envelope(msg::Envelope env, const transport::Sender& sender);
  // Why a client request may not be served ("" if it may); `kind` is set.
  std::string client_refusal(const msg::Envelope& env, const transport::Sender& sender,
                             const std::string& reply_public_key, std::string* kind) const;
  void heard_from(const msg::NodeInfo& info, bool direct);
  void apply(const std::vector<MembershipEvent>& events);
  void ensure_connected(const msg::NodeInfo& info);
  void run_ticker();
  // Reopens links a peer refused at the handshake (see gateway.hpp, Reload).
  void retry_refused_links(int64_t now_ms);
  void send_heartbeats();
  void send_joins();
  // A member's request is answered over the link to it; a client's over a
  // connection to the address it gave.
  void serve_status(const msg::Envelope& env, bool from_member);
  void on_reload_request(const msg::Envelope& env, const transport::Sender& sender);
  void serve_reload(const msg::Envelope& env);  // on the ticker thread
  // Answers a request the node does not serve with RequestFailed, at the
  // reply address its payload gives (submit_task, cancel_task).
  template <class Request>
  void refuse_client_request(const msg::Envelope& env, const std::string& code, const std::string& message);
  void log(const std::string& line) const;
  msg::Envelope envelope_to(const std::string& node, const std::string& type, uint32_t version, std::string payload);

  NodeOptions options_;
  NodeConfig self_;
  int64_t incarnation_ = 0;
  std::string endpoint_;
  std::string secret_key_;
  transport::Gateway gateway_;
  PendingRequests pending_;
  RefusalCounts refusals_;
  std::mutex reload_mu_;  // one reload at a time

  mutable std::mutex mu_;  // guards everything below
  std::shared_ptr<const Admission> admission_;
  std::unique_ptr<Membership> membership_;
  std::map<std::string, std::string> connected_;  // member -> endpoint of our connection to it
  struct Client {
    std::string endpoint, key;
    uint64_t last_used = 0;
  };
  std::map<std::string, Client> clients_;  // at most cluster.max_clients
  uint64_t client_uses_ = 0;
  std::set<std::string> seeds_connected_;
  std::map<std::string, int64_t> refused_links_;  // peer -> when its handshake was refused (steady ms)
  bool joined_ = false;
  std::vector<Listener> listeners_;
  std::map<std::string, SenderHandler> handlers_;
  std::function<json()> status_extra_;
  // `kaisha cluster reload` requests waiting for the ticker (bounded).
  std::vector<msg::Envelope> reload_requests_;
  uint64_t reloads_ = 0;     // applied
  std::string last_reload_;  // what the last reload did or why it was refused

  std::atomic<uint64_t> seq_{0};
  std::atomic<uint64_t> heartbeats_read_{0};
  telemetry::Family<telemetry::Counter>* messages_ = nullptr;  // NodeOptions::metrics' family, or null
  std::atomic<bool> stopping_{false};
  std::mutex tick_mu_;
  std::condition_variable tick_cv_;
  std::thread ticker_;

  // Hosting: the node's own actor system and the actor that runs employees.
  std::unique_ptr<caf::actor_system_config> caf_config_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<caf::actor> host_;
  std::unique_ptr<caf::actor> model_client_;
  std::unique_ptr<caf::actor> journal_;
};

}  // namespace kaisha::cluster
