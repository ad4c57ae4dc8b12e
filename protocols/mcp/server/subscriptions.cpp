#include "protocols/mcp/server/subscriptions.hpp"

#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

namespace {

Error invalid_filter(std::string message) { return Error{"invalid_params", std::move(message)}; }

json tagged(const json& id, json params) {
  if (!params.is_object()) params = json::object();
  params["_meta"][meta_key::kSubscriptionId] = id;
  return params;
}

}  // namespace

Result<SubscriptionFilter> SubscriptionFilter::parse(const json& params) {
  auto it = params.is_object() ? params.find("notifications") : params.end();
  if (!params.is_object() || it == params.end() || !it->is_object())
    return invalid_filter(
        "Invalid params: subscriptions/listen needs params.notifications, an object naming the "
        "notifications to receive (toolsListChanged, promptsListChanged, resourcesListChanged, "
        "resourceSubscriptions)");
  SubscriptionFilter f;
  for (auto [key, field] : {std::pair{"toolsListChanged", &f.tools}, std::pair{"promptsListChanged", &f.prompts},
                            std::pair{"resourcesListChanged", &f.resources}}) {
    auto v = it->find(key);
    if (v == it->end()) continue;
    if (!v->is_boolean())
      return invalid_filter(std::string("Invalid params: params.notifications.") + key + " must be true or false");
    *field = v->get<bool>();
  }
  if (auto uris = it->find("resourceSubscriptions"); uris != it->end()) {
    if (!uris->is_array())
      return invalid_filter(
          "Invalid params: params.notifications.resourceSubscriptions must be a list of resource URIs");
    for (size_t i = 0; i < uris->size(); ++i) {
      if (!(*uris)[i].is_string())
        return invalid_filter("Invalid params: params.notifications.resourceSubscriptions[" + std::to_string(i) +
                              "] must be a string (a resource URI)");
      f.resource_uris.insert((*uris)[i].get<std::string>());
    }
  }
  if (auto ids = it->find("taskIds"); ids != it->end()) {
    if (!ids->is_array())
      return invalid_filter("Invalid params: params.notifications.taskIds must be a list of task ids");
    for (size_t i = 0; i < ids->size(); ++i) {
      if (!(*ids)[i].is_string())
        return invalid_filter("Invalid params: params.notifications.taskIds[" + std::to_string(i) +
                              "] must be a string (a task id)");
      f.task_ids.insert((*ids)[i].get<std::string>());
    }
  }
  return f;
}

json SubscriptionFilter::to_json() const {
  json n = json::object();
  if (tools) n["toolsListChanged"] = true;
  if (prompts) n["promptsListChanged"] = true;
  if (resources) n["resourcesListChanged"] = true;
  if (!resource_uris.empty()) n["resourceSubscriptions"] = resource_uris;
  if (!task_ids.empty()) n["taskIds"] = task_ids;
  return n;
}

void Subscriptions::open(const json& id, SubscriptionFilter filter, Send send, std::shared_ptr<std::atomic<bool>> gone,
                         End end) {
  // The acknowledgement goes first, before the entry can receive anything:
  // the revision forbids a notification on a subscription before it.
  json ack = jsonrpc::make_notification("notifications/subscriptions/acknowledged",
                                        tagged(id, json{{"notifications", filter.to_json()}}));
  std::lock_guard lock(mu_);
  std::erase_if(open_, [](const auto& e) { return !e.second.alive(); });  // streams closed meanwhile
  if (!send(ack)) return;
  open_[id.dump()] = Entry{id, std::move(filter), std::move(send), std::move(gone), std::move(end)};
}

void Subscriptions::cancel(const json& id) {
  std::lock_guard lock(mu_);
  open_.erase(id.dump());
}

void Subscriptions::deliver(const std::function<bool(const SubscriptionFilter&)>& wants, const std::string& method,
                            const json& params) {
  std::lock_guard lock(mu_);
  for (auto it = open_.begin(); it != open_.end();) {
    if (!it->second.alive()) {
      it = open_.erase(it);
      continue;
    }
    if (!wants(it->second.filter)) {
      ++it;
      continue;
    }
    if (it->second.send(jsonrpc::make_notification(method, tagged(it->second.id, params))))
      ++it;
    else
      it = open_.erase(it);  // the stream is gone: so is the subscription
  }
}

void Subscriptions::list_changed(const std::string& method) {
  deliver(
      [&](const SubscriptionFilter& f) {
        return (method == "notifications/tools/list_changed" && f.tools) ||
               (method == "notifications/prompts/list_changed" && f.prompts) ||
               (method == "notifications/resources/list_changed" && f.resources);
      },
      method, json::object());
}

void Subscriptions::task_status(const std::string& task_id, const json& detailed) {
  deliver([&](const SubscriptionFilter& f) { return f.task_ids.count(task_id) != 0; }, "notifications/tasks", detailed);
}

void Subscriptions::resource_updated(const std::string& uri) {
  deliver([&](const SubscriptionFilter& f) { return f.resource_uris.count(uri) != 0; },
          "notifications/resources/updated", json{{"uri", uri}});
}

void Subscriptions::end_all() {
  std::map<std::string, Entry> all;
  {
    std::lock_guard lock(mu_);
    all.swap(open_);
  }
  for (auto& [_, e] : all) e.end(json{{"resultType", "complete"}, {"_meta", {{meta_key::kSubscriptionId, e.id}}}});
}

size_t Subscriptions::size() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

}  // namespace kaisha::mcp
