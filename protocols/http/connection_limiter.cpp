#include "protocols/http/connection_limiter.hpp"

#include <algorithm>

namespace kaisha::protocols {

ConnectionLimiter::ConnectionLimiter(size_t max_total, size_t max_per_client)
    : max_total_(std::max<size_t>(max_total, 1)), max_per_client_(std::max<size_t>(max_per_client, 1)) {}

ConnectionLimiter::Admission ConnectionLimiter::admit(const std::string& client) {
  std::lock_guard lock(mu_);
  if (total_ >= max_total_) return {false, "the server holds " + std::to_string(total_) + " connections, its limit"};
  size_t& mine = per_client_[client];
  if (mine >= max_per_client_)
    return {false, client + " already holds " + std::to_string(mine) + " connections, the limit per client"};
  ++mine;
  ++total_;
  return {true, {}};
}

void ConnectionLimiter::release(const std::string& client) {
  std::lock_guard lock(mu_);
  auto it = per_client_.find(client);
  if (it == per_client_.end()) return;
  if (--it->second == 0) per_client_.erase(it);
  if (total_ > 0) --total_;
}

size_t ConnectionLimiter::total() const {
  std::lock_guard lock(mu_);
  return total_;
}

size_t ConnectionLimiter::of(const std::string& client) const {
  std::lock_guard lock(mu_);
  auto it = per_client_.find(client);
  return it == per_client_.end() ? 0 : it->second;
}

}  // namespace kaisha::protocols
