// Subscriptions: the open subscriptions/listen requests of modern clients
// (2026-07-28), which replace the legacy GET stream and resources/subscribe.
//
// A client opts in to notification types (toolsListChanged,
// promptsListChanged, resourcesListChanged, resourceSubscriptions: a list of
// URIs; taskIds: tasks of the tasks extension, whose every change of status
// comes as notifications/tasks). The server first sends notifications/subscriptions/acknowledged with
// the subset it honours, then only the change notifications the filter asked
// for; every one carries the listen request's id as
// _meta["io.modelcontextprotocol/subscriptionId"]. The subscription ends
// when its stream goes (the client closed it, or cancelled it on stdio), or
// when the server stops: then it is answered with a result carrying the same
// id. Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

struct SubscriptionFilter {
  bool tools = false, prompts = false, resources = false;
  std::set<std::string> resource_uris;
  std::set<std::string> task_ids;

  // From params.notifications; Error "invalid_params" saying what is wrong.
  static Result<SubscriptionFilter> parse(const json& params);
  // The wire form (what the acknowledgement echoes).
  json to_json() const;
};

class Subscriptions {
 public:
  // send: delivers a message on the listen stream, false once it is gone.
  // end: answers the listen request with its final result.
  using Send = std::function<bool(const json&)>;
  using End = std::function<void(json result)>;

  // Acknowledges and keeps the subscription of listen request `id`. `gone`,
  // when not null, is set once its stream has gone (dropped at the next
  // open or delivery).
  void open(const json& id, SubscriptionFilter filter, Send send, std::shared_ptr<std::atomic<bool>> gone, End end);
  // Drops it without an answer (the client cancelled or went away).
  void cancel(const json& id);
  // A list_changed notification ("notifications/tools/list_changed", ...) to
  // every subscription that asked for it.
  void list_changed(const std::string& method);
  // notifications/resources/updated to the subscriptions of `uri`.
  void resource_updated(const std::string& uri);
  // notifications/tasks (params: the DetailedTask) to the subscriptions of
  // task `task_id`.
  void task_status(const std::string& task_id, const json& detailed);
  // The server stops: every subscription is answered and dropped.
  void end_all();

  size_t size() const;

 private:
  struct Entry {
    json id;
    SubscriptionFilter filter;
    Send send;
    std::shared_ptr<std::atomic<bool>> gone;
    End end;
    bool alive() const { return !gone || !gone->load(); }
  };
  void deliver(const std::function<bool(const SubscriptionFilter&)>& wants, const std::string& method,
               const json& params);

  mutable std::mutex mu_;
  std::map<std::string, Entry> open_;  // by id.dump()
};

}  // namespace kaisha::mcp
