// A CompanyService for protocol tests: tasks live in memory and move only
// when the test says so (start, complete, fail), or at once when an
// auto-answer function is set. Events are recorded per task and replayed to
// late subscribers, as the real service does. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/company/company_service.hpp"

namespace kaisha::testing {

class FakeCompanyService : public company::CompanyService {
 public:
  // When set, a submitted task is worked and completed inside submit():
  // "thinking" event, then "final" with auto_answer(input) (or "error" when
  // it returns a string starting with "ERROR:"; an empty string leaves the
  // task working until it is canceled or the test finishes it).
  std::function<std::string(const std::string& input)> auto_answer;
  // When set, called after a task was queued (outside the lock), e.g. to
  // work it on another thread.
  std::function<void(const std::string& id, const std::string& input)> on_submit;

  // When set, every submit() is refused with this error (a company shutting down, say).
  std::optional<Error> refuse;

  Result<std::string> submit(const std::string& input, company::TaskListener listener) override {
    if (refuse) return *refuse;
    if (input.empty()) return Error{"usage", "empty task"};
    std::string id;
    {
      std::lock_guard lock(mu_);
      id = "t" + std::to_string(++next_);
      company::TaskInfo t;
      t.id = id;
      t.input = input;
      t.created_ms = t.updated_ms = 1700000000000 + next_;
      tasks_[id] = Task{t, {}, {}};
      if (listener) tasks_[id].listeners.emplace_back(++subscriptions_, std::move(listener));
      order_.push_back(id);
      inputs.push_back(input);
    }
    if (on_submit) on_submit(id, input);
    if (auto_answer) {
      const std::string a = auto_answer(input);
      start(id, "working on it");
      if (a.empty()) return id;
      if (a.rfind("ERROR:", 0) == 0)
        fail(id, a.substr(6));
      else
        complete(id, a);
    }
    return id;
  }

  Result<uint64_t> subscribe(const std::string& task_id, company::TaskListener listener) override {
    // Replay and registration under emit_mu_, so no event slips between
    // them or overtakes the replay.
    std::lock_guard order(emit_mu_);
    std::vector<msg::ProgressEvent> replay;
    uint64_t id;
    {
      std::lock_guard lock(mu_);
      auto it = tasks_.find(task_id);
      if (it == tasks_.end()) return Error{"not_found", "no task " + task_id};
      replay = it->second.events;
      id = ++subscriptions_;
      it->second.listeners.emplace_back(id, listener);
    }
    for (const auto& e : replay) listener(e);
    return id;
  }

  void unsubscribe(const std::string& task_id, uint64_t subscription) override {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) return;
    std::erase_if(it->second.listeners, [&](const auto& l) { return l.first == subscription; });
  }

  // Listeners the task holds now (its submitter's included).
  size_t listeners_of(const std::string& task_id) {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(task_id);
    return it == tasks_.end() ? 0 : it->second.listeners.size();
  }

  std::optional<company::TaskInfo> task(const std::string& task_id) override {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) return std::nullopt;
    return it->second.info;
  }

  Result<company::TaskInfo> wait(const std::string& task_id, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    auto it = tasks_.find(task_id);
    if (it == tasks_.end()) return Error{"not_found", "no task " + task_id};
    cv_.wait_for(lock, timeout, [&] { return company::is_final(tasks_[task_id].info.state); });
    return tasks_[task_id].info;
  }

  Status cancel(const std::string& task_id) override {
    {
      std::lock_guard lock(mu_);
      auto it = tasks_.find(task_id);
      if (it == tasks_.end()) return Error{"not_found", "no task " + task_id};
      if (company::is_final(it->second.info.state)) return Error{"state", "task " + task_id + " has ended"};
      ++cancels;
    }
    finish(task_id, company::TaskState::canceled, "", "canceled by the client", "canceled");
    return Status::Ok();
  }

  std::vector<company::TaskInfo> tasks(size_t limit) override {
    std::lock_guard lock(mu_);
    std::vector<company::TaskInfo> out;
    for (auto it = order_.rbegin(); it != order_.rend() && out.size() < limit; ++it) out.push_back(tasks_[*it].info);
    return out;
  }

  Result<json> journal(const std::string&) override { return json::array(); }
  json agents() override { return agents_json; }
  json budget() override { return json::object(); }
  json call_tool(const std::string&, const json&) override { return json::object(); }
  std::string session_id() const override { return "s-fake"; }

  // ---- test controls ----
  // start/complete/fail do nothing to a task that has already ended (e.g.
  // canceled before its worker got to it), as in the real company.
  void start(const std::string& id, const std::string& thought) {
    {
      std::lock_guard lock(mu_);
      if (company::is_final(tasks_[id].info.state)) return;
      tasks_[id].info.state = company::TaskState::working;
    }
    emit(id, "thinking", thought);
  }
  void complete(const std::string& id, const std::string& answer) {
    finish(id, company::TaskState::completed, answer, "", "final");
  }
  void fail(const std::string& id, const std::string& why) { finish(id, company::TaskState::failed, "", why, "error"); }
  void emit(const std::string& id, const std::string& kind, const std::string& text) {
    msg::ProgressEvent e;
    e.task_id = id;
    e.session_id = "s-fake";
    e.agent = "CEO";
    e.kind = msg::parse_event_kind(kind).value();
    e.text = text;
    e.at_ms = 1700000001000;
    std::lock_guard order(emit_mu_);
    std::vector<std::pair<uint64_t, company::TaskListener>> ls;
    {
      std::lock_guard lock(mu_);
      tasks_[id].events.push_back(e);
      ls = tasks_[id].listeners;
    }
    for (auto& [_, l] : ls) l(e);
  }

  // Protocol handles, kept in memory as the journal would keep them; while
  // `refuse_handles` is set, save_handle() fails with it.
  std::optional<Error> refuse_handles;
  Status save_handle(const company::ProtocolHandle& h) override {
    if (refuse_handles) return *refuse_handles;
    std::lock_guard lock(mu_);
    handles_[h.protocol + "\n" + h.handle] = h;
    return Status::Ok();
  }
  std::optional<company::ProtocolHandle> find_handle(const std::string& protocol, const std::string& handle) override {
    std::lock_guard lock(mu_);
    auto it = handles_.find(protocol + "\n" + handle);
    if (it == handles_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<company::ProtocolHandle> live_handles(const std::string& protocol, int64_t now_ms,
                                                    size_t limit) override {
    std::lock_guard lock(mu_);
    std::vector<company::ProtocolHandle> out;
    for (const auto& [_, h] : handles_)
      if (h.protocol == protocol && !h.expired(now_ms) && out.size() < limit) out.push_back(h);
    return out;
  }

  json agents_json = json::object();
  std::vector<std::string> inputs;
  int cancels = 0;

 private:
  struct Task {
    company::TaskInfo info;
    std::vector<msg::ProgressEvent> events;
    std::vector<std::pair<uint64_t, company::TaskListener>> listeners;
  };

  void finish(const std::string& id, company::TaskState state, const std::string& answer, const std::string& error,
              const std::string& kind) {
    {
      std::lock_guard lock(mu_);
      auto& t = tasks_[id].info;
      if (company::is_final(t.state)) return;
      t.state = state;
      t.answer = answer;
      t.error = error;
      t.updated_ms += 10;
    }
    cv_.notify_all();
    emit(id, kind, kind == "final" ? answer : error);
  }

  std::mutex mu_;
  std::mutex emit_mu_;  // orders event delivery; taken before mu_
  std::condition_variable cv_;
  std::map<std::string, Task> tasks_;
  std::map<std::string, company::ProtocolHandle> handles_;  // by protocol "\n" handle
  std::vector<std::string> order_;
  int next_ = 0;
  uint64_t subscriptions_ = 0;
};

}  // namespace kaisha::testing
