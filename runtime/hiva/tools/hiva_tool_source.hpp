// HivaToolSource: the tools through which HiVA's driver runs its agents'
// Python tools (hiva.md §7.3, §9 "Tool subsystem", §14 items 5, 15, 22). The
// driver asks for a run with a RunTool effect; the strategy's actor calls
// this source, which does the blocking work on its own bounded pool.
//
//   hiva.agent_tool    {"code": str, "input": str}
//     Runs tool_function(input) from `code` in the sandbox (function_run.hpp:
//     a fresh tmpfs workspace per run, no network, no host env). A run that
//     times out, hits a limit or crashes is tried again, up to
//     settings.retries more times, after backoff_ms, 2·backoff_ms, ...; an
//     exception the tool raises is not (the same code raises again).
//     Success: output {"result", "truncated", "attempts", "failures",
//     "code_hash", "ms"}; failure: output {"error", "kind", "traceback",
//     "attempts", "failures", "code_hash", "ms"}. "failures" lists every
//     failed attempt as {"attempt", "kind", "error", "ms"}; "kind" is a
//     run_kind_name ("tool_error", "timeout", "limit", "crash", "protocol",
//     "sandbox"). A call whose retry stop() cancelled has "stopped": true.
//   hiva.validate_tool {"code": str, "forbidden_modules"?: [str]}
//     Loads the code in the sandbox and checks that tool_function exists, is
//     callable and takes one positional argument, without calling it. Code
//     importing one of forbidden_modules (hiva.md §7.3: "not use os or
//     subprocess") is refused before it runs.
//     Success: output {"signature"}; failure: output {"error", "kind",
//     "traceback"}, "error" being the loader's text (a SyntaxError names
//     its line).
//   hiva.embed         {"texts": [str]}
//     The embedder hook's vectors for the texts (at most kMaxEmbedTexts, each
//     at most kMaxToolInputBytes), on a worker, since a provider's embedder
//     waits for HTTP. Success: output {"vectors": [[float]]}, one per text,
//     in order; failure: the embedder's error. An error saying no embedder is
//     configured when there is no hook.
//
// Bad arguments (not an object, a missing or non-string field, code over
// kMaxToolCodeBytes, input over kMaxToolInputBytes) are answered at once,
// with an error naming the field.
// (hiva.environment is not here: the strategy's environment actor judges it,
// environment/sandbox/task_set_environment.hpp.)
// specs() is empty: these tools are the driver's, never offered to a model.
// All three are repeatable: nothing they do outlives their run.
#pragma once

#include "runtime/hiva/tools/hiva_tool_names.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/company/tool_source.hpp"
#include "runtime/core/result.hpp"
#include "runtime/hiva/tools/tool_metrics.hpp"
#include "runtime/sandbox/limits.hpp"

namespace kaisha::tools {
class WorkerPool;
}

namespace kaisha::hiva {

inline constexpr size_t kMaxToolCodeBytes = 64 * 1024;
inline constexpr size_t kMaxToolInputBytes = 1024 * 1024;
inline constexpr size_t kMaxForbiddenModules = 256;
inline constexpr size_t kMaxEmbedTexts = 1024;

struct HivaToolSettings {
  int64_t timeout_ms = 30000;  // each run's wall clock (App. G.2)
  int retries = 3;             // further attempts after a retryable failure
  int64_t backoff_ms = 500;    // before the first retry; doubled before each next one
  // A result's text is cut to this many bytes, at a code-point boundary.
  size_t max_result_bytes = 64 * 1024;
  // Memory, processes, files of each run. wall_timeout_ms is timeout_ms, and
  // cpu_seconds is raised to outlast it, so a busy loop ends as a timeout.
  sandbox::SandboxLimits limits;
  int workers = 2;
  // Calls waiting or running at once; one more is refused at once.
  size_t max_pending = 64;
  size_t max_metric_versions = 4096;
};

// The configured embedder (runtime/memory/configured_embedder.hpp): one
// vector per text, in order. Runs on the source's workers and may block.
using EmbedHook = std::function<Result<std::vector<std::vector<float>>>(const std::vector<std::string>& texts)>;

class HivaToolSource : public company::ToolSource {
 public:
  explicit HivaToolSource(HivaToolSettings settings = {}, EmbedHook embed = nullptr);
  ~HivaToolSource() override;  // stop()s
  HivaToolSource(const HivaToolSource&) = delete;
  HivaToolSource& operator=(const HivaToolSource&) = delete;

  std::string origin() const override { return "hiva"; }
  std::vector<llm::ToolSpec> specs() const override { return {}; }
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;
  bool repeatable(const std::string& name) const override;
  // Category strategy, with each run's timeout (the version of an agent's
  // tool is its graph's: GraphAgent::tool_versions).
  company::ToolMetadata metadata(const std::string& name) const override;
  // Queued calls are answered with an error; a waiting retry is not made
  // (the call answers with its failures so far); returns when the runs under
  // way have ended (at most one run's timeout). Later calls are refused.
  void stop() override;

  // Per code hash: {"calls", "runs", "failures", "timeouts", "total_ms"} (tool_metrics.hpp).
  json metrics() const;

  // The wait before retry `n` (1-based): backoff_ms · 2^(n-1).
  static int64_t backoff_before(const HivaToolSettings& settings, int n);

 private:
  company::ToolResult run_agent_tool(const std::string& code, const std::string& input);
  company::ToolResult validate_tool(const std::string& code, const std::vector<std::string>& forbidden_modules);
  company::ToolResult embed_texts(const std::vector<std::string>& texts);
  // Waits `ms` unless stop() comes first; false when it did.
  bool wait_unless_stopped(int64_t ms);
  sandbox::SandboxLimits run_limits() const;

  const HivaToolSettings settings_;
  const EmbedHook embed_;
  ToolMetrics metrics_;

  std::mutex pool_mu_;  // guards pool_ against stop()
  std::unique_ptr<tools::WorkerPool> pool_;
  std::mutex pending_mu_;
  size_t pending_ = 0;  // calls submitted and not yet answered

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
};

}  // namespace kaisha::hiva
