#include "runtime/cluster/pending_requests.hpp"

#include <utility>
#include <vector>

namespace kaisha::cluster {

void PendingRequests::add(const std::string& id, const std::string& node, int64_t deadline_ms, Callback done) {
  std::lock_guard<std::mutex> g(mu_);
  pending_[id] = Entry{node, deadline_ms, std::move(done)};
}

bool PendingRequests::complete(const msg::Envelope& reply) {
  Callback done;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = pending_.find(reply.correlation);
    if (it == pending_.end()) return false;
    // Only the node the request went to may answer it.
    if (it->second.node != reply.from.node) return false;
    done = std::move(it->second.done);
    pending_.erase(it);
  }
  if (done) done(reply);
  return true;
}

bool PendingRequests::fail(const std::string& id, Error error) {
  Callback done;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return false;
    done = std::move(it->second.done);
    pending_.erase(it);
  }
  if (done) done(std::move(error));
  return true;
}

size_t PendingRequests::fail_node(const std::string& node, const std::string& why) {
  std::vector<Callback> ended;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.node == node) {
        ended.push_back(std::move(it->second.done));
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& done : ended)
    if (done) done(Error{"node_down", why});
  return ended.size();
}

size_t PendingRequests::expire(int64_t now_ms) {
  std::vector<std::pair<Callback, std::string>> ended;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.deadline_ms > 0 && it->second.deadline_ms <= now_ms) {
        ended.emplace_back(std::move(it->second.done), it->second.node);
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [done, node] : ended)
    if (done) done(Error{"timeout", "no answer from node '" + node + "' before the request's deadline"});
  return ended.size();
}

size_t PendingRequests::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return pending_.size();
}

}  // namespace kaisha::cluster
