// A small in-memory CompanyService for the MCP server tests: tasks are
// answered by a scripted function on their own thread, emitting the progress
// events it is given; "hang" tasks run until canceled.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/company/company_service.hpp"

namespace kaisha::mcp::testing {

class FakeCompany : public company::CompanyService {
 public:
  ~FakeCompany() override {
    for (auto& t : threads_) t.join();
  }

  Result<std::string> submit(const std::string& input, company::TaskListener listener) override {
    if (input.empty()) return Error{"usage", "empty task"};
    std::string id;
    {
      std::lock_guard lock(mu_);
      id = "t" + std::to_string(tasks_.size() + 1);
      company::TaskInfo info;
      info.id = id;
      info.input = input;
      info.state = company::TaskState::working;
      tasks_[id] = info;
    }
    threads_.emplace_back([this, id, input, listener] {
      for (int i = 0; i < 3 && listener; ++i) {
        msg::ProgressEvent e;
        e.task_id = id;
        e.agent = "CEO";
        e.kind = msg::EventKind::thinking;
        e.text = "step " + std::to_string(i);
        listener(e);
      }
      std::unique_lock lock(mu_);
      if (input == "hang") cv_.wait(lock, [&] { return tasks_[id].state == company::TaskState::canceled; });
      auto& t = tasks_[id];
      if (t.state == company::TaskState::working) {
        if (input == "fail") {
          t.state = company::TaskState::failed;
          t.error = "the model refused";
        } else {
          t.state = company::TaskState::completed;
          t.answer = "answer to: " + input;
        }
      }
      cv_.notify_all();
    });
    return id;
  }

  Result<uint64_t> subscribe(const std::string&, company::TaskListener) override { return uint64_t{0}; }
  void unsubscribe(const std::string&, uint64_t) override {}

  std::optional<company::TaskInfo> task(const std::string& id) override {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return std::nullopt;
    return it->second;
  }

  Result<company::TaskInfo> wait(const std::string& id, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    if (!tasks_.count(id)) return Error{"not_found", "no task " + id};
    cv_.wait_for(lock, timeout, [&] { return company::is_final(tasks_[id].state); });
    return tasks_[id];
  }

  Status cancel(const std::string& id) override {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(id);
    if (it == tasks_.end()) return Error{"not_found", "no task " + id};
    if (company::is_final(it->second.state)) return Error{"state", "task already ended"};
    it->second.state = company::TaskState::canceled;
    it->second.error = "canceled by the client";
    ++cancels;
    cv_.notify_all();
    return Status::Ok();
  }

  std::vector<company::TaskInfo> tasks(size_t limit) override {
    std::lock_guard lock(mu_);
    std::vector<company::TaskInfo> out;
    for (auto it = tasks_.rbegin(); it != tasks_.rend() && out.size() < limit; ++it) out.push_back(it->second);
    return out;
  }

  Result<json> journal(const std::string& id) override {
    if (!task(id)) return Error{"not_found", "no task " + id};
    return json::array({json{{"agent", "CEO"}, {"kind", "task"}, {"payload", id + journal_suffix}}});
  }

  json agents() override { return json::array({json{{"name", "Poet"}, {"model", "llama3.2" + agent_suffix}}}); }
  json budget() override { return json{{"expense_remaining", 9.5}}; }

  json call_tool(const std::string& name, const json& args) override {
    calls.push_back({name, args});
    if (name == "AskAgent") {
      if (args.value("agent_name", "") != "Poet")
        return json{
            {"status", "error"}, {"message", "no agent named " + args.value("agent_name", "")}, {"output", nullptr}};
      return json{{"status", "success"}, {"message", "asked"}, {"output", "a poem about " + args.value("prompt", "")}};
    }
    if (name == "MemoryManager")
      return json{{"status", "success"},
                  {"message", "ok"},
                  {"output", json::array({"User prefers Rust" + agent_suffix, "Deploy on Fridays is banned"})}};
    return json{{"status", "error"}, {"message", "unknown tool"}, {"output", nullptr}};
  }

  std::string session_id() const override { return "s1"; }

  std::vector<std::pair<std::string, json>> calls;
  std::atomic<int> cancels{0};
  // Appended to the agents' model, a memory and the journal's payload: a
  // test sets bytes that are not UTF-8 here.
  std::string agent_suffix, journal_suffix;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, company::TaskInfo> tasks_;
  std::vector<std::thread> threads_;
};

}  // namespace kaisha::mcp::testing
