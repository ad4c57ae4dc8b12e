#include "cluster/cluster_client.hpp"

#include <unistd.h>

#include <atomic>
#include <thread>

#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"

namespace kaisha::cluster {

namespace {
constexpr const char* kPeer = "cluster";
std::atomic<uint64_t> client_counter{0};
}  // namespace

ClusterClient::~ClusterClient() { gateway_.stop(); }

Result<std::unique_ptr<ClusterClient>> ClusterClient::connect(ClientOptions o) {
  std::unique_ptr<ClusterClient> c(new ClusterClient());
  if (o.address.find("://") == std::string::npos) o.address = "tcp://" + o.address;
  c->options_ = o;
  c->name_ = "client-" + std::to_string(getpid()) + "-" + std::to_string(++client_counter);
  transport::GatewayOptions g;
  g.node = c->name_;
  g.bind = o.bind;
  g.secret_key = o.secret_key;
  g.public_key = o.public_key;
  g.authorised_keys = o.authorised_keys;
  g.allow_plaintext = o.secret_key.empty();
  g.max_frame_bytes = o.max_frame_bytes;
  g.heartbeat_ms = o.heartbeat_ms;
  g.log = [](std::string_view) {};  // the caller reports what matters
  ClusterClient* raw = c.get();
  c->gateway_.on_receive([raw](msg::Envelope env) {
    {
      std::lock_guard<std::mutex> lk(raw->mu_);
      raw->inbox_.push_back(std::move(env));
    }
    raw->cv_.notify_all();
  });
  c->gateway_.on_peer_error([raw](const std::string&, const Error& e) {
    if (e.code != "disconnected") return;  // a refused handshake keeps the request's own timeout
    {
      std::lock_guard<std::mutex> lk(raw->mu_);
      raw->gone_ = e.message;
    }
    raw->cv_.notify_all();
  });
  auto ep = c->gateway_.start(g);
  if (!ep.ok()) return ep.error();
  c->endpoint_ = *ep;
  if (Status s = c->gateway_.connect(kPeer, o.address, o.server_key); !s.ok()) return s.error();
  return c;
}

Result<msg::Envelope> ClusterClient::next(const std::string& correlation, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
      if (it->correlation != correlation) continue;
      msg::Envelope e = std::move(*it);
      inbox_.erase(it);
      return e;
    }
    if (!gone_.empty())
      return Error{"node_gone", "the node at " + options_.address + " went away before answering: " + gone_};
    if (cv_.wait_for(lk, timeout) == std::cv_status::timeout && inbox_.empty() && gone_.empty())
      return Error{"timeout", "no answer from " + options_.address + " within " + std::to_string(timeout.count()) +
                                  " ms (is a node running there, and does it accept this client?)"};
  }
}

std::string ClusterClient::next_request_id() {
  std::lock_guard<std::mutex> lk(mu_);
  return name_ + "-" + std::to_string(++seq_);
}

Result<msg::TaskResult> ClusterClient::submit(const std::string& input,
                                              const std::function<void(const msg::ProgressEvent&)>& progress,
                                              std::chrono::milliseconds idle_timeout) {
  msg::SubmitTask task{input, endpoint_, options_.public_key};
  const auto give_up = std::chrono::steady_clock::now() + idle_timeout;
  std::string id = next_request_id();
  auto track = [&](const std::string& submit, const std::string& task) {
    std::lock_guard<std::mutex> lk(mu_);
    submit_id_ = submit;
    task_id_ = task;
  };
  track(id, "");
  struct Untrack {
    std::function<void()> f;
    ~Untrack() { f(); }
  } untrack{[&] { track("", ""); }};
  if (Status s = gateway_.send(kPeer, msg::wrap(task, {name_, "user"}, {"", "CEO"}, id)); !s.ok()) return s.error();
  for (;;) {
    auto e = next(id, idle_timeout);
    if (!e.ok()) return e.error();
    if (!e->trace.empty()) {
      std::lock_guard<std::mutex> lk(mu_);
      if (task_id_.empty()) task_id_ = e->trace;  // events carry their task id as the trace
    }
    if (e->type == msg::RequestFailed::kType) {
      auto f = msg::unwrap<msg::RequestFailed>(*e);
      // The CEO node is up but its company not yet: ask again shortly.
      if (f.ok() && f->code == "starting" && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        id = next_request_id();
        track(id, "");
        if (Status s = gateway_.send(kPeer, msg::wrap(task, {name_, "user"}, {"", "CEO"}, id)); !s.ok())
          return s.error();
        continue;
      }
    }
    if (e->type == msg::ProgressEvent::kType) {
      if (auto ev = msg::unwrap<msg::ProgressEvent>(*e); ev.ok() && progress) progress(*ev);
      continue;
    }
    if (e->type == msg::TaskResult::kType) return msg::unwrap<msg::TaskResult>(*e);
    if (e->type == msg::RequestFailed::kType) {
      auto f = msg::unwrap<msg::RequestFailed>(*e);
      return Error{f.ok() ? f->code : "failed", f.ok() ? f->message : f.error().message};
    }
  }
}

Result<json> ClusterClient::status(std::chrono::milliseconds timeout) {
  msg::StatusRequest req{endpoint_, options_.public_key};
  const std::string id = next_request_id();
  if (Status s = gateway_.send(kPeer, msg::wrap(req, {name_, "user"}, {"", "node"}, id)); !s.ok()) return s.error();
  auto e = next(id, timeout);
  if (!e.ok()) return e.error();
  auto st = msg::unwrap<msg::ClusterStatus>(*e);
  if (!st.ok()) return st.error();
  return st->status;
}

}  // namespace kaisha::cluster

namespace kaisha::cluster {

Result<msg::ReloadResult> ClusterClient::reload(std::chrono::milliseconds timeout) {
  msg::ReloadRequest req{endpoint_, options_.public_key};
  const std::string id = next_request_id();
  if (Status s = gateway_.send(kPeer, msg::wrap(req, {name_, "user"}, {"", "node"}, id)); !s.ok()) return s.error();
  auto e = next(id, timeout);
  if (!e.ok()) return e.error();
  if (e->type == msg::RequestFailed::kType) {
    auto f = msg::unwrap<msg::RequestFailed>(*e);
    return Error{f.ok() ? f->code : "failed", f.ok() ? f->message : f.error().message};
  }
  return msg::unwrap<msg::ReloadResult>(*e);
}

Result<msg::CancelResult> ClusterClient::cancel(const std::string& task_id, const std::string& reason,
                                                std::chrono::milliseconds timeout) {
  msg::CancelTask req;
  req.task_id = task_id;
  req.reason = reason;
  req.reply_endpoint = endpoint_;
  req.reply_public_key = options_.public_key;
  if (task_id.empty()) {
    std::lock_guard<std::mutex> lk(mu_);
    req.task_id = task_id_;
    req.submit_id = submit_id_;
  }
  if (req.task_id.empty() && req.submit_id.empty()) return Error{"nothing_to_cancel", "no task is running"};
  const std::string id = next_request_id();
  if (Status s = gateway_.send(kPeer, msg::wrap(req, {name_, "user"}, {"", "CEO"}, id)); !s.ok()) return s.error();
  auto e = next(id, timeout);
  if (!e.ok()) return e.error();
  if (e->type == msg::RequestFailed::kType) {
    auto f = msg::unwrap<msg::RequestFailed>(*e);
    return Error{f.ok() ? f->code : "failed", f.ok() ? f->message : f.error().message};
  }
  return msg::unwrap<msg::CancelResult>(*e);
}

}  // namespace kaisha::cluster
