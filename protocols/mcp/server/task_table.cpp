#include "protocols/mcp/server/task_table.hpp"

#include <openssl/rand.h>

#include <array>
#include <cstdio>
#include <ctime>

#include "runtime/core/utf8.hpp"

namespace kaisha::mcp {

namespace {

std::string random_task_id() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (unsigned char b : bytes) {
    id.push_back(hex[b >> 4]);
    id.push_back(hex[b & 0xF]);
  }
  return id;
}

Error not_found(const std::string& id) {
  return Error{kTaskNotFound,
               "Task not found: '" + utf8::truncate(id, 64) + "' (unknown, or discarded after its ttlMs elapsed)"};
}

}  // namespace

std::string iso8601(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

TaskTable::TaskTable(TaskLimits limits, Clock clock) : limits_(limits), clock_(std::move(clock)) {}

bool TaskTable::terminal(const std::string& status) {
  return status == "completed" || status == "failed" || status == "cancelled";
}

json TaskTable::detailed(const Task& t) const {
  json d{{"taskId", t.id},
         {"status", t.status},
         {"createdAt", iso8601(t.created)},
         {"lastUpdatedAt", iso8601(t.updated)},
         {"ttlMs", static_cast<int64_t>(t.ttl.count())},
         {"pollIntervalMs", static_cast<int64_t>(limits_.poll_interval.count())}};
  if (!t.status_message.empty()) d["statusMessage"] = t.status_message;
  if (t.status == "input_required") d["inputRequests"] = t.pending;
  if (t.status == "completed") d["result"] = t.result;
  if (t.status == "failed") d["error"] = t.error;
  return d;
}

void TaskTable::set_status(Task& t, std::string status, std::string message) {
  t.status = std::move(status);
  t.status_message = std::move(message);
  t.updated = clock_();
}

void TaskTable::expire_locked(std::vector<std::pair<std::string, json>>& changed) {
  const auto now = clock_();
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    Task& t = it->second;
    if (now - t.created < t.ttl) {
      ++it;
      continue;
    }
    if (!terminal(t.status)) {
      t.cancel->store(true);
      set_status(t, "cancelled", "Discarded: its ttlMs elapsed before it finished");
      changed.emplace_back(t.id, detailed(t));
    }
    it = tasks_.erase(it);
  }
  if (!changed.empty()) answered_.notify_all();
}

void TaskTable::publish(std::unique_lock<std::mutex>& lock, const std::vector<std::pair<std::string, json>>& changed) {
  // Taken before the state's lock is let go: listeners hear the changes in
  // the order they were made.
  std::lock_guard tell_lock(tell_mu_);
  lock.unlock();
  if (!listener_) return;
  for (const auto& [id, d] : changed) listener_(id, d);
}

Result<json> TaskTable::create() {
  std::vector<std::pair<std::string, json>> changed;
  json out;
  std::unique_lock lock(mu_);
  expire_locked(changed);
  if (tasks_.size() < limits_.max_live) {
    Task t;
    t.id = random_task_id();
    t.created = t.updated = clock_();
    t.ttl = limits_.ttl;
    out = detailed(t);
    tasks_.emplace(t.id, std::move(t));
  }
  publish(lock, changed);
  if (out.is_null())
    return Error{kTaskCapacity, "Too many tasks: this server keeps at most " + std::to_string(limits_.max_live) +
                                    " tasks at once (running, or finished and not yet past their ttlMs of " +
                                    std::to_string(limits_.ttl.count()) + " ms); cancel a running task or retry later"};
  return out;
}

Status TaskTable::restore(const TaskSnapshot& k) {
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  expire_locked(changed);
  Status out = Status::Ok();
  if (tasks_.count(k.id)) {
    out = Error{"exists", "task " + k.id + " is kept already"};
  } else if (clock_() - k.created >= k.ttl) {
    out = not_found(k.id);
  } else if (tasks_.size() >= limits_.max_live) {
    out = Error{kTaskCapacity,
                "Too many tasks: this server keeps at most " + std::to_string(limits_.max_live) + " tasks at once"};
  } else {
    Task t;
    t.id = k.id;
    t.created = k.created;
    t.ttl = k.ttl;
    if (terminal(k.status)) {
      t.status = k.status;
      t.status_message = k.status_message;
      t.updated = k.updated;
      t.result = k.result;
      t.error = k.error;
    } else {
      t.updated = clock_();  // working again from now
    }
    tasks_.emplace(t.id, std::move(t));
  }
  publish(lock, changed);
  return out;
}

void TaskTable::drop(const std::string& task_id) {
  std::lock_guard lock(mu_);
  tasks_.erase(task_id);
}

std::optional<TaskSnapshot> TaskTable::snapshot(const std::string& task_id) const {
  std::lock_guard lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return std::nullopt;
  const Task& t = it->second;
  return TaskSnapshot{t.id, t.status, t.status_message, t.created, t.updated, t.ttl, t.result, t.error};
}

std::shared_ptr<std::atomic<bool>> TaskTable::cancel_flag(const std::string& task_id) const {
  std::lock_guard lock(mu_);
  auto it = tasks_.find(task_id);
  return it == tasks_.end() ? nullptr : it->second.cancel;
}

Result<json> TaskTable::get(const std::string& task_id) {
  std::vector<std::pair<std::string, json>> changed;
  Result<json> out = not_found(task_id);
  std::unique_lock lock(mu_);
  expire_locked(changed);
  if (auto it = tasks_.find(task_id); it != tasks_.end()) out = detailed(it->second);
  publish(lock, changed);
  return out;
}

Result<json> TaskTable::ask(const std::string& task_id, const json& requests) {
  std::vector<std::pair<std::string, json>> changed;
  std::map<std::string, std::string> wire_of;  // the caller's key -> the key on the wire
  std::unique_lock lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return not_found(task_id);
  {
    Task& t = it->second;
    if (terminal(t.status)) return Error{kTaskEnded, "the task has ended (" + t.status + ")"};
    for (auto r = requests.begin(); r != requests.end(); ++r) {
      std::string key = r.key();
      for (int n = 2; t.used_keys.count(key); ++n) key = r.key() + "-" + std::to_string(n);
      t.used_keys.insert(key);
      wire_of[r.key()] = key;
      t.pending[key] = r.value();
    }
    set_status(t, "input_required", "Waiting for the client's answers (tasks/update)");
    changed.emplace_back(t.id, detailed(t));
  }
  publish(lock, changed);
  changed.clear();
  lock.lock();

  const auto deadline = std::chrono::steady_clock::now() + limits_.input_timeout;
  auto done = [&] {
    auto t = tasks_.find(task_id);
    if (t == tasks_.end() || terminal(t->second.status)) return true;
    for (const auto& [_, wire] : wire_of)
      if (!t->second.answers.contains(wire)) return false;
    return true;
  };
  const bool in_time = answered_.wait_until(lock, deadline, done);
  it = tasks_.find(task_id);
  if (it == tasks_.end() || terminal(it->second.status))
    return Error{kTaskEnded, "the task was cancelled or expired while waiting for the client's answers"};
  Task& t = it->second;
  if (!in_time) {
    for (const auto& [_, wire] : wire_of) t.pending.erase(wire);
    if (t.pending.empty()) set_status(t, "working");
    return Error{"timeout", "the client did not answer within " + std::to_string(limits_.input_timeout.count()) +
                                " ms (tasks/update)"};
  }
  json answers = json::object();
  for (const auto& [key, wire] : wire_of) {
    answers[key] = std::move(t.answers[wire]);
    t.answers.erase(wire);
  }
  return answers;
}

Status TaskTable::update(const std::string& task_id, const json& input_responses) {
  if (!input_responses.is_object())
    return Error{"invalid_params",
                 "Invalid params: params.inputResponses must be an object mapping inputRequests "
                 "keys to the client's results, got " +
                     std::string(input_responses.type_name())};
  for (auto r = input_responses.begin(); r != input_responses.end(); ++r)
    if (!r.value().is_object())
      return Error{"invalid_params", "Invalid params: params.inputResponses['" + utf8::truncate(r.key(), 64) +
                                         "'] must be the client's result object, got " +
                                         std::string(r.value().type_name())};
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return not_found(task_id);
  Task& t = it->second;
  bool took = false;
  for (auto r = input_responses.begin(); r != input_responses.end(); ++r) {
    if (!t.pending.contains(r.key())) continue;  // not outstanding: ignored
    t.answers[r.key()] = r.value();
    t.pending.erase(r.key());
    took = true;
  }
  if (took) {
    // Answered keys leave inputRequests at once; the task is working again
    // when none is left.
    if (t.pending.empty() && t.status == "input_required")
      set_status(t, "working");
    else
      t.updated = clock_();
    changed.emplace_back(t.id, detailed(t));
    answered_.notify_all();
  }
  publish(lock, changed);
  return {};
}

Status TaskTable::cancel(const std::string& task_id, const std::string& message) {
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return not_found(task_id);
  Task& t = it->second;
  if (!terminal(t.status)) {
    t.cancel->store(true);
    t.pending = json::object();
    set_status(t, "cancelled", message);
    changed.emplace_back(t.id, detailed(t));
    answered_.notify_all();
  }
  publish(lock, changed);
  return {};
}

void TaskTable::complete(const std::string& task_id, json result) {
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end() || terminal(it->second.status)) return;
  Task& t = it->second;
  t.result = std::move(result);
  t.pending = json::object();
  set_status(t, "completed");
  changed.emplace_back(t.id, detailed(t));
  publish(lock, changed);
}

void TaskTable::fail(const std::string& task_id, json error, const std::string& message) {
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end() || terminal(it->second.status)) return;
  Task& t = it->second;
  t.error = std::move(error);
  t.pending = json::object();
  set_status(t, "failed", message);
  changed.emplace_back(t.id, detailed(t));
  publish(lock, changed);
}

void TaskTable::expire() {
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  expire_locked(changed);
  publish(lock, changed);
}

void TaskTable::cancel_all(const std::string& message) {
  std::vector<std::pair<std::string, json>> changed;
  std::unique_lock lock(mu_);
  for (auto& [id, t] : tasks_) {
    if (terminal(t.status)) continue;
    t.cancel->store(true);
    t.pending = json::object();
    set_status(t, "cancelled", message);
    changed.emplace_back(id, detailed(t));
  }
  answered_.notify_all();
  publish(lock, changed);
}

void TaskTable::set_listener(Listener listener) {
  std::lock_guard lock(tell_mu_);
  listener_ = std::move(listener);
}

size_t TaskTable::size() const {
  std::lock_guard lock(mu_);
  return tasks_.size();
}

size_t TaskTable::running() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [_, t] : tasks_) n += terminal(t.status) ? 0 : 1;
  return n;
}

}  // namespace kaisha::mcp
