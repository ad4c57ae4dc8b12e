#include "protocols/mcp/server/mcp_session.hpp"

namespace kaisha::mcp {

void McpSession::set_initialized(std::string version, json client_info, json client_capabilities) {
  std::lock_guard lock(mu_);
  version_ = std::move(version);
  client_info_ = std::move(client_info);
  client_caps_ = client_capabilities.is_object() ? std::move(client_capabilities) : json::object();
  initialized_ = true;
}

std::string McpSession::protocol_version() const {
  std::lock_guard lock(mu_);
  return version_;
}

json McpSession::client_capabilities() const {
  std::lock_guard lock(mu_);
  return client_caps_;
}

void McpSession::subscribe(const std::string& uri) {
  std::lock_guard lock(mu_);
  subscriptions_.insert(uri);
}

void McpSession::unsubscribe(const std::string& uri) {
  std::lock_guard lock(mu_);
  subscriptions_.erase(uri);
}

bool McpSession::subscribed(const std::string& uri) const {
  std::lock_guard lock(mu_);
  return subscriptions_.count(uri) != 0;
}

std::shared_ptr<std::atomic<bool>> McpSession::begin_request(const json& id) {
  auto flag = std::make_shared<std::atomic<bool>>(closed_.load());
  std::lock_guard lock(mu_);
  running_[id.dump()] = flag;
  return flag;
}

void McpSession::end_request(const json& id) {
  std::lock_guard lock(mu_);
  running_.erase(id.dump());
}

bool McpSession::cancel_request(const json& id) {
  std::lock_guard lock(mu_);
  auto it = running_.find(id.dump());
  if (it == running_.end()) return false;
  it->second->store(true);
  return true;
}

void McpSession::close() {
  closed_ = true;
  std::lock_guard lock(mu_);
  for (auto& [_, flag] : running_) flag->store(true);
  unrelated_ = nullptr;
}

void McpSession::set_unrelated_sink(std::function<bool(const json&)> sink) {
  std::lock_guard lock(mu_);
  unrelated_ = std::move(sink);
}

bool McpSession::send_unrelated(const json& message) {
  std::function<bool(const json&)> sink;
  {
    std::lock_guard lock(mu_);
    sink = unrelated_;
  }
  return sink ? sink(message) : false;
}

}  // namespace kaisha::mcp
