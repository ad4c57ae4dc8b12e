#include "runtime/hiva/tools/hiva_tool_source.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/hiva/tools/function_run.hpp"
#include "runtime/tools/worker_pool.hpp"

namespace kaisha::hiva {

using company::ToolResult;

namespace {

const char* json_type(const json& j) { return j.type_name(); }

// args[field] as a string of at most max_bytes, or the error naming the field.
std::optional<std::string> string_field(const std::string& tool, const json& args, const char* field, size_t max_bytes,
                                        std::string* out) {
  auto it = args.find(field);
  if (it == args.end()) return tool + ": args." + field + " is missing";
  if (!it->is_string()) return tool + ": args." + field + " must be a string, got " + json_type(*it);
  const std::string& s = it->get_ref<const std::string&>();
  if (s.size() > max_bytes)
    return tool + ": args." + field + " is " + std::to_string(s.size()) + " bytes; at most " +
           std::to_string(max_bytes) + " are accepted";
  *out = s;
  return std::nullopt;
}

// args.forbidden_modules, when given: a list of module names.
std::optional<std::string> module_list(const std::string& tool, const json& args, std::vector<std::string>* out) {
  auto it = args.find("forbidden_modules");
  if (it == args.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) return tool + ": args.forbidden_modules must be a list of module names, got " + json_type(*it);
  if (it->size() > kMaxForbiddenModules)
    return tool + ": args.forbidden_modules has " + std::to_string(it->size()) + " names; at most " +
           std::to_string(kMaxForbiddenModules) + " are accepted";
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    if (!m.is_string() || m.get_ref<const std::string&>().empty() || m.get_ref<const std::string&>().size() > 128)
      return tool + ": args.forbidden_modules[" + std::to_string(i) + "] must be a module name (a non-empty string)";
    out->push_back(m.get<std::string>());
  }
  return std::nullopt;
}

// args.texts: a list of at most kMaxEmbedTexts strings.
std::optional<std::string> text_list(const std::string& tool, const json& args, std::vector<std::string>* out) {
  if (!args.is_object()) return tool + ": args must be a JSON object, got " + json_type(args);
  auto it = args.find("texts");
  if (it == args.end()) return tool + ": args.texts is missing";
  if (!it->is_array()) return tool + ": args.texts must be a list of strings, got " + json_type(*it);
  if (it->size() > kMaxEmbedTexts)
    return tool + ": args.texts has " + std::to_string(it->size()) + " texts; at most " +
           std::to_string(kMaxEmbedTexts) + " are accepted";
  for (size_t i = 0; i < it->size(); ++i) {
    const json& t = (*it)[i];
    if (!t.is_string()) return tool + ": args.texts[" + std::to_string(i) + "] must be a string, got " + json_type(t);
    if (t.get_ref<const std::string&>().size() > kMaxToolInputBytes)
      return tool + ": args.texts[" + std::to_string(i) + "] is over " + std::to_string(kMaxToolInputBytes) + " bytes";
    out->push_back(t.get<std::string>());
  }
  return std::nullopt;
}

std::string attempts_text(int n) { return std::to_string(n) + (n == 1 ? " attempt" : " attempts"); }

}  // namespace

HivaToolSource::HivaToolSource(HivaToolSettings settings, EmbedHook embed)
    : settings_(std::move(settings)),
      embed_(std::move(embed)),
      metrics_(settings_.max_metric_versions),
      pool_(std::make_unique<tools::WorkerPool>(settings_.workers, std::max<size_t>(1, settings_.max_pending))) {}

HivaToolSource::~HivaToolSource() { stop(); }

int64_t HivaToolSource::backoff_before(const HivaToolSettings& settings, int n) {
  int64_t ms = std::max<int64_t>(0, settings.backoff_ms);
  for (int i = 1; i < n && ms < (int64_t{1} << 40); ++i) ms *= 2;
  return ms;
}

bool HivaToolSource::repeatable(const std::string& name) const {
  return name == kAgentTool || name == kValidateTool || name == kEmbedTool;
}

company::ToolMetadata HivaToolSource::metadata(const std::string& name) const {
  company::ToolMetadata m;
  m.category = company::ToolCategory::strategy;
  if (name == kAgentTool || name == kValidateTool) m.timeout_ms = settings_.timeout_ms;
  return m;
}

json HivaToolSource::metrics() const { return metrics_.to_json(); }

sandbox::SandboxLimits HivaToolSource::run_limits() const {
  sandbox::SandboxLimits l = settings_.limits;
  l.wall_timeout_ms = std::max<int64_t>(1, settings_.timeout_ms);
  // The CPU limit must not end a busy loop before the wall clock does.
  l.cpu_seconds = std::max<int64_t>(l.cpu_seconds, l.wall_timeout_ms / 1000 + 2);
  return l;
}

void HivaToolSource::call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
                          std::function<void(ToolResult)> done) {
  (void)ctx;  // the runs are confined to their own tmpfs, whoever asks
  std::function<ToolResult()> work;
  if (name == kAgentTool || name == kValidateTool) {
    if (!args.is_object())
      return done(ToolResult::error(name + ": args must be a JSON object, got " + json_type(args)));
    std::string code, input;
    if (auto bad = string_field(name, args, "code", kMaxToolCodeBytes, &code)) return done(ToolResult::error(*bad));
    if (name == kAgentTool) {
      if (auto bad = string_field(name, args, "input", kMaxToolInputBytes, &input))
        return done(ToolResult::error(*bad));
      work = [this, code = std::move(code), input = std::move(input)] { return run_agent_tool(code, input); };
    } else {
      std::vector<std::string> forbidden;
      if (auto bad = module_list(name, args, &forbidden)) return done(ToolResult::error(*bad));
      work = [this, code = std::move(code), forbidden = std::move(forbidden)] {
        return validate_tool(code, forbidden);
      };
    }
  } else if (name == kEmbedTool) {
    if (!embed_) return done(ToolResult::error(name + ": no embedder is configured for this HiVA run"));
    std::vector<std::string> texts;
    if (auto bad = text_list(name, args, &texts)) return done(ToolResult::error(*bad));
    if (texts.empty()) return done(ToolResult::success(name + ": nothing to embed", json{{"vectors", json::array()}}));
    work = [this, texts = std::move(texts)] { return embed_texts(texts); };
  } else {
    return done(ToolResult::error("hiva: there is no tool named '" + name + "' (this source has " + kAgentTool + ", " +
                                  kValidateTool + " and " + kEmbedTool + ")"));
  }

  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    if (pending_ >= settings_.max_pending)
      return done(ToolResult::error(name + ": not run: " + std::to_string(pending_) +
                                    " HiVA tool calls are already waiting or running; try again when some have "
                                    "finished"));
    ++pending_;
  }
  auto finish = [this, done = std::move(done)](ToolResult r) {
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      --pending_;
    }
    done(std::move(r));
  };
  auto failed = [name](bool ran, const std::string& why) {
    return ToolResult::error(name + (ran ? ": failed: " : ": not run: ") + why);
  };
  {
    // Under the lock so that stop() cannot destroy the pool mid-submit. The
    // pool never answers inline here: it holds at least max_pending jobs and
    // is only stopped after being taken out of pool_.
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_) return pool_->submit_tool(std::move(work), std::move(finish), std::move(failed));
  }
  finish(failed(false, "the HiVA tool source has stopped"));
}

bool HivaToolSource::wait_unless_stopped(int64_t ms) {
  std::unique_lock<std::mutex> lock(stop_mu_);
  return !stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
}

void HivaToolSource::stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  std::unique_ptr<tools::WorkerPool> pool;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pool.swap(pool_);
  }
  pool.reset();  // answers the queued calls, then waits for the running ones
}

namespace {

// An agent's tool that raised, ran out of time or crashed is the agent's
// code failing, not these tools: its class is invalid_input, so that HiVA's
// evolving tools never open the company's circuit breaker for every agent
// (company/tool_health.hpp). Only a sandbox that ran nothing counts.
ToolResult caller_or_tool(RunKind kind, ToolResult r) {
  if (kind == RunKind::sandbox) return r;
  return company::with_error_class(std::move(r), company::ToolErrorClass::invalid_input);
}

}  // namespace

ToolResult HivaToolSource::run_agent_tool(const std::string& code, const std::string& input) {
  const std::string hash = ToolMetrics::code_hash(code);
  metrics_.record_call(hash);
  FunctionRunRequest req;
  req.mode = RunMode::run;
  req.code = code;
  req.input = input;
  req.max_result_bytes = settings_.max_result_bytes;
  req.limits = run_limits();

  json failures = json::array();
  int64_t total_ms = 0;
  int attempt = 0;
  bool stopped = false;
  FunctionRun run;
  for (;;) {
    ++attempt;
    run = run_tool_function(req);
    total_ms += run.wall_ms;
    // A sandbox that could not be built ran nothing of the tool.
    if (run.kind != RunKind::sandbox)
      metrics_.record_run(hash, run.kind != RunKind::ok, run.kind == RunKind::timeout, run.wall_ms);
    if (run.kind == RunKind::ok) break;
    failures.push_back(
        {{"attempt", attempt}, {"kind", run_kind_name(run.kind)}, {"error", run.error}, {"ms", run.wall_ms}});
    if (!retryable(run.kind) || attempt > settings_.retries) break;
    if (!wait_unless_stopped(backoff_before(settings_, attempt))) {
      stopped = true;
      break;
    }
  }

  if (run.kind == RunKind::ok)
    return ToolResult::success(std::string(kAgentTool) + ": tool_function returned" +
                                   (attempt > 1 ? " on attempt " + std::to_string(attempt) : std::string()),
                               json{{"result", run.result},
                                    {"truncated", run.truncated},
                                    {"attempts", attempt},
                                    {"failures", failures},
                                    {"code_hash", hash},
                                    {"ms", total_ms}});
  json out{{"error", run.error},
           {"kind", run_kind_name(run.kind)},
           {"traceback", run.traceback},
           {"attempts", attempt},
           {"failures", failures},
           {"code_hash", hash},
           {"ms", total_ms}};
  if (stopped) out["stopped"] = true;
  std::string message = std::string(kAgentTool) + " failed (" + attempts_text(attempt) + "): " + run.error;
  if (stopped) message += "; not tried again because kaisha is stopping";
  return caller_or_tool(run.kind, ToolResult::error(std::move(message), std::move(out)));
}

ToolResult HivaToolSource::embed_texts(const std::vector<std::string>& texts) {
  auto vectors = embed_(texts);
  if (!vectors.ok()) return ToolResult::error(std::string(kEmbedTool) + ": " + vectors.error().message);
  if (vectors->size() != texts.size())
    return ToolResult::error(std::string(kEmbedTool) + ": the embedder returned " + std::to_string(vectors->size()) +
                             " vectors for " + std::to_string(texts.size()) + " texts");
  json out = json::array();
  for (const auto& v : *vectors) out.push_back(v);
  return ToolResult::success(std::string(kEmbedTool) + ": " + std::to_string(texts.size()) + " texts embedded",
                             json{{"vectors", std::move(out)}});
}

ToolResult HivaToolSource::validate_tool(const std::string& code, const std::vector<std::string>& forbidden_modules) {
  FunctionRunRequest req;
  req.mode = RunMode::validate;
  req.code = code;
  req.forbidden_modules = forbidden_modules;
  req.limits = run_limits();
  FunctionRun run = run_tool_function(req);
  if (run.kind == RunKind::ok)
    return ToolResult::success(
        std::string(kValidateTool) + ": tool_function" + run.signature + " loads and takes one positional argument",
        json{{"signature", run.signature}});
  return caller_or_tool(
      run.kind,
      ToolResult::error(std::string(kValidateTool) + ": " + run.error,
                        json{{"error", run.error}, {"kind", run_kind_name(run.kind)}, {"traceback", run.traceback}}));
}

}  // namespace kaisha::hiva
