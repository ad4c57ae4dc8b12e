#include "protocols/mcp/mcp_tasks.hpp"

#include <condition_variable>

#include "protocols/mcp/input_exchange.hpp"
#include "protocols/mcp/mcp_protocol.hpp"
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

McpTasks::McpTasks(TaskLimits limits) : table_(limits) {}

McpTasks::~McpTasks() {
  std::map<uint64_t, std::thread> workers;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    workers.swap(workers_);
  }
  table_.cancel_all("Cancelled: the server is stopping");
  for (auto& [_, t] : workers)
    if (t.joinable()) t.join();
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
                              "Too many tasks: this server keeps at most " +
                                  std::to_string(table_.limits().max_live) +
                                  " tasks at once (running, or finished and within their ttlMs); cancel a task "
                                  "or retry later");
  auto launch = std::make_shared<Launch>();
  ctx.go_async = [this, launch, &ctx]() -> bool {
    auto created = table_.create();
    if (!created) return false;  // the table filled up meanwhile: the call goes on synchronously
    const std::string id = (*created)["taskId"].get<std::string>();
    ctx.cancel_flag = table_.cancel_flag(id);
    ctx.notify = [](const json&) {};  // notifications/progress and /message do not exist on tasks
    ctx.close_stream = [] {};
    ctx.state = nullptr;
    const json caps = ctx.client_capabilities;
    ctx.ask_client = [this, id, caps](const json& requests, const json&) -> Result<json> {
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
    // A cancelled task stays cancelled: these are ignored then.
    if (r) table_.complete(id, std::move(*r));
    else table_.fail(id, error_object(r.error()), "Tool execution failed: " + r.error().message);
  });
  std::unique_lock lock(launch->mu);
  launch->cv.wait(lock, [&] { return launch->phase != Launch::Phase::kRunning; });
  if (launch->phase == Launch::Phase::kDone) return std::move(launch->outcome);
  json created = launch->created;
  created["resultType"] = "task";
  return created;
}

}  // namespace kaisha::mcp
