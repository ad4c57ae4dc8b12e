#include "protocols/mcp/server/mcp_tasks.hpp"

#include <condition_variable>
#include <iostream>

#include "protocols/mcp/server/input_exchange.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/jsonrpc/dispatcher.hpp"

namespace kaisha::mcp {

namespace {

// One call's hand-over between the request's thread and its worker.
struct Launch {
  enum class Phase { kRunning, kAsync, kDone };
  std::mutex mu;
  std::condition_variable cv;
  Phase phase = Phase::kRunning;
  Result<json> outcome = json::object();  // kDone: the work's outcome
  json created;                           // kAsync: the task as created
  std::string task_id;
};

// A handler's Error as the JSON-RPC error object a failed task carries.
json error_object(const Error& e) {
  jsonrpc::RpcError rpc = jsonrpc::to_rpc_error(e);
  json out{{"code", rpc.code}, {"message", rpc.message}};
  if (!rpc.data.is_null()) out["data"] = rpc.data;
  return out;
}

}  // namespace

bool declares_tasks(const json& client_capabilities) {
  if (!client_capabilities.is_object()) return false;
  auto ext = client_capabilities.find("extensions");
  return ext != client_capabilities.end() && ext->is_object() && ext->contains(kTasksExtension);
}

json tasks_capability_required() {
  return json{{"requiredCapabilities", {{"extensions", {{kTasksExtension, json::object()}}}}}};
}

McpTasks::McpTasks(TaskLimits limits, McpBackend* backend) : table_(limits), backend_(backend) {}

McpTasks::~McpTasks() {
  std::map<uint64_t, std::thread> workers;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    workers.swap(workers_);
  }
  // The kept tasks this stop cancels are kept cancelled: a restarted server
  // answers them so.
  std::vector<std::string> running;
  {
    std::lock_guard lock(kept_mu_);
    for (const auto& [id, _] : kept_)
      if (auto t = table_.snapshot(id); t && !TaskTable::terminal(t->status)) running.push_back(id);
  }
  table_.cancel_all("Cancelled: the server is stopping");
  for (auto& [_, t] : workers)
    if (t.joinable()) t.join();
  for (const auto& id : running) (void)record(id);
}

std::function<Result<json>(const json&, const json&)> McpTasks::asker(const std::string& id, json caps) {
  return [this, id, caps = std::move(caps)](const json& requests, const json&) -> Result<json> {
    json missing = json::object();
    for (auto it = requests.begin(); it != requests.end(); ++it) {
      const std::string cap = capability_for(it.value().value("method", ""));
      if (!cap.empty() && !caps.contains(cap)) missing[cap] = json::object();
    }
    if (!missing.empty())
      return Error{std::to_string(kMissingRequiredClientCapability),
                   "Missing required client capability: the task needs " + missing.dump()};
    return table_.ask(id, requests);
  };
}

Status McpTasks::record(const std::string& task_id, std::optional<TaskSnapshot> state) {
  if (!backend_) return Status::Ok();
  KeptTask k;
  {
    std::lock_guard lock(kept_mu_);
    auto it = kept_.find(task_id);
    if (it == kept_.end()) return Status::Ok();
    k.work = it->second.first;
    k.client_capabilities = it->second.second;
  }
  auto snap = state ? std::move(state) : table_.snapshot(task_id);
  if (!snap) {  // expired meanwhile: its record expires too
    std::lock_guard lock(kept_mu_);
    kept_.erase(task_id);
    return Status::Ok();
  }
  k.task = std::move(*snap);
  Status s = backend_->keep_task(k);
  if (!s.ok()) std::cerr << "kaisha: MCP task " << task_id << " could not be kept: " << s.error().message << "\n";
  return s;
}

void McpTasks::finish(const std::string& id, Result<json> r) {
  auto ended = table_.snapshot(id);
  if (!ended || TaskTable::terminal(ended->status)) return;  // cancelled or expired: it stays so
  // Kept as it ends before tasks/get can show it so.
  ended->updated = std::chrono::system_clock::now();
  if (r) {
    ended->status = "completed";
    ended->status_message.clear();
    ended->result = *r;
  } else {
    ended->status = "failed";
    ended->status_message = "Tool execution failed: " + r.error().message;
    ended->error = error_object(r.error());
  }
  (void)record(id, ended);
  if (r)
    table_.complete(id, std::move(*r));
  else
    table_.fail(id, error_object(r.error()), ended->status_message);
  // A tasks/cancel that came in meanwhile won: kept as it is now.
  if (auto now = table_.snapshot(id); now && now->status != ended->status) (void)record(id);
}

Status McpTasks::cancel(const std::string& task_id) {
  if (Status s = table_.cancel(task_id); !s.ok()) return s;
  if (Status s = record(task_id); !s.ok())
    return Error{"internal", "the task was cancelled, but recording that failed (" + s.error().message +
                                 "); a restarted server may resume it"};
  return Status::Ok();
}

size_t McpTasks::restore() {
  if (!backend_) return 0;
  size_t n = 0;
  for (KeptTask& k : backend_->kept_tasks()) {
    const std::string id = k.task.id;
    if (Status s = table_.restore(k.task); !s.ok()) {
      if (s.error().code != kTaskNotFound && s.error().code != "exists")
        std::cerr << "kaisha: MCP task " << id << " not taken back: " << s.error().message << "\n";
      continue;
    }
    ++n;
    {
      std::lock_guard lock(kept_mu_);
      kept_[id] = {k.work, k.client_capabilities};
    }
    if (TaskTable::terminal(k.task.status)) continue;
    // Its work goes on (or learns how it ended) on a worker, as a task.
    auto ctx = std::make_shared<McpCallContext>();
    ctx->cancel_flag = table_.cancel_flag(id);
    ctx->notify = [](const json&) {};
    ctx->close_stream = [] {};
    ctx->client_capabilities = k.client_capabilities;
    ctx->ask_client = asker(id, k.client_capabilities);
    spawn([this, id, ctx, work = std::move(k.work)] { finish(id, backend_->resume_task(work, *ctx)); });
  }
  return n;
}

void McpTasks::spawn(std::function<void()> body) {
  std::vector<std::thread> done;
  {
    std::lock_guard lock(mu_);
    for (uint64_t n : finished_)
      if (auto it = workers_.find(n); it != workers_.end()) {
        done.push_back(std::move(it->second));
        workers_.erase(it);
      }
    finished_.clear();
    const uint64_t n = next_worker_++;
    workers_[n] = std::thread([this, n, body = std::move(body)] {
      body();
      std::lock_guard lock(mu_);
      if (!stopping_) finished_.push_back(n);
    });
  }
  for (auto& t : done) t.join();
}

Result<json> McpTasks::run(std::shared_ptr<void> keep, McpCallContext& ctx, std::function<Result<json>()> work) {
  table_.expire();
  if (table_.size() >= table_.limits().max_live)
    return jsonrpc::app_error(jsonrpc::code::kInternalError,
                              "Too many tasks: this server keeps at most " + std::to_string(table_.limits().max_live) +
                                  " tasks at once (running, or finished and within their ttlMs); cancel a task "
                                  "or retry later");
  auto launch = std::make_shared<Launch>();
  ctx.go_async = [this, launch, &ctx](const json& work) -> bool {
    auto created = table_.create();
    if (!created) return false;  // the table filled up meanwhile: the call goes on synchronously
    const std::string id = (*created)["taskId"].get<std::string>();
    if (!work.is_null() && backend_) {
      // Kept before the client learns the id; a task that cannot be kept is
      // not made (the call goes on synchronously).
      {
        std::lock_guard lock(kept_mu_);
        // Tasks the table discarded (expired) are forgotten here too: at
        // most max_live entries stay, besides those expired since the last call.
        for (auto it = kept_.begin(); it != kept_.end();)
          it = table_.snapshot(it->first) ? std::next(it) : kept_.erase(it);
        kept_[id] = {work, ctx.client_capabilities};
      }
      if (!record(id).ok()) {
        {
          std::lock_guard lock(kept_mu_);
          kept_.erase(id);
        }
        table_.drop(id);
        return false;
      }
    }
    ctx.cancel_flag = table_.cancel_flag(id);
    ctx.notify = [](const json&) {};  // notifications/progress and /message do not exist on tasks
    ctx.close_stream = [] {};
    ctx.state = nullptr;
    ctx.ask_client = asker(id, ctx.client_capabilities);
    {
      std::lock_guard lock(launch->mu);
      launch->phase = Launch::Phase::kAsync;
      launch->created = std::move(*created);
      launch->task_id = id;
    }
    launch->cv.notify_all();
    return true;
  };
  spawn([this, launch, keep = std::move(keep), work = std::move(work)] {
    Result<json> r = work();
    std::unique_lock lock(launch->mu);
    if (launch->phase == Launch::Phase::kRunning) {
      launch->outcome = std::move(r);
      launch->phase = Launch::Phase::kDone;
      lock.unlock();
      launch->cv.notify_all();
      return;
    }
    const std::string id = launch->task_id;
    lock.unlock();
    finish(id, std::move(r));
  });
  std::unique_lock lock(launch->mu);
  launch->cv.wait(lock, [&] { return launch->phase != Launch::Phase::kRunning; });
  if (launch->phase == Launch::Phase::kDone) return std::move(launch->outcome);
  json created = launch->created;
  created["resultType"] = "task";
  return created;
}

}  // namespace kaisha::mcp
