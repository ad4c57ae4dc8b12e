// McpSession: what an MCP server remembers about one connected client from
// initialize until the session ends: the negotiated version, the log level,
// resource subscriptions, the requests still running (so that
// notifications/cancelled can reach them) and where to send messages that
// belong to no request (list_changed, resource updates).
// Thread-safe: transports touch a session from several threads.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::mcp {

class McpSession {
 public:
  // `conversation`: the company conversation its tasks run in
  // (CompanyService::submit_in): its own id over HTTP, where each client
  // session is a conversation; "" (the default session) on stdio.
  McpSession(std::string id, bool own_conversation)
      : id_(std::move(id)), conversation_(own_conversation ? id_ : std::string()) {}

  const std::string& id() const { return id_; }
  const std::string& conversation() const { return conversation_; }

  void set_initialized(std::string version, json client_info, json client_capabilities);
  void set_ready() { ready_ = true; }  // notifications/initialized arrived
  bool initialized() const { return initialized_; }
  bool ready() const { return ready_; }
  std::string protocol_version() const;
  json client_capabilities() const;

  int min_log_rank() const { return log_rank_; }
  void set_min_log_rank(int rank) { log_rank_ = rank; }

  void subscribe(const std::string& uri);
  void unsubscribe(const std::string& uri);
  bool subscribed(const std::string& uri) const;

  // A client request starts running; returns its cancel flag.
  std::shared_ptr<std::atomic<bool>> begin_request(const json& id);
  void end_request(const json& id);
  // notifications/cancelled: true when the request was running.
  bool cancel_request(const json& id);
  // Ends the session: every running request is cancelled.
  void close();
  bool closed() const { return closed_; }

  // Where messages that belong to no request go; returns false when nobody
  // is listening (the message is dropped).
  void set_unrelated_sink(std::function<bool(const json&)> sink);
  bool send_unrelated(const json& message);

 private:
  const std::string id_;
  const std::string conversation_;
  mutable std::mutex mu_;
  std::atomic<bool> initialized_{false}, ready_{false}, closed_{false};
  std::atomic<int> log_rank_{0};
  std::string version_;
  json client_info_, client_caps_ = json::object();
  std::set<std::string> subscriptions_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_;
  std::function<bool(const json&)> unrelated_;
};

}  // namespace kaisha::mcp
