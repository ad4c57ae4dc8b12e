#include "runtime/hiva/tools/function_run.hpp"

#include <algorithm>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::hiva {

namespace {

constexpr size_t kMaxErrorBytes = 4000;
constexpr size_t kMaxTracebackBytes = 8000;

// The last non-empty line: the runner writes its reply last, after a newline.
std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = s.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return s.substr(start, end - start + 1);
}

std::string tail(const std::string& s, size_t n) {
  const std::string text = utf8::repair(s);
  return text.size() <= n ? text : "..." + utf8::tail(text, n);
}

FunctionRun failed(RunKind kind, std::string error, std::string traceback = "", int64_t wall_ms = 0) {
  FunctionRun r;
  r.kind = kind;
  r.error = utf8::shorten(error, kMaxErrorBytes);
  r.traceback = std::move(traceback);
  r.wall_ms = wall_ms;
  return r;
}

}  // namespace

const char* run_kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::ok:
      return "ok";
    case RunKind::tool_error:
      return "tool_error";
    case RunKind::timeout:
      return "timeout";
    case RunKind::limit:
      return "limit";
    case RunKind::crash:
      return "crash";
    case RunKind::protocol:
      return "protocol";
    case RunKind::sandbox:
      return "sandbox";
  }
  return "unknown";
}

bool retryable(RunKind kind) { return kind == RunKind::timeout || kind == RunKind::limit || kind == RunKind::crash; }

std::string result_text(const json& result) { return result.is_string() ? result.get<std::string>() : result.dump(); }

FunctionRun run_tool_function(const FunctionRunRequest& request) {
  auto runner = read_text_file(data_file("data/sandbox/function_runner.py"));
  if (!runner) return failed(RunKind::sandbox, "the HiVA tool runner is missing: " + runner.error().message);

  sandbox::SandboxRequest req;
  // -I: ignore PYTHON* variables and the user site; -B: no .pyc writes.
  req.argv = {"python3", "-I", "-B", "-c", runner.value()};
  req.stdin_data = json{{"mode", request.mode == RunMode::run ? "run" : "validate"},
                        {"code", request.code},
                        {"input", request.input},
                        {"max_result_bytes", request.max_result_bytes},
                        {"forbidden_modules", request.forbidden_modules}}
                       .dump();
  // No workspace: a private tmpfs, fresh for this run and gone after it.
  // No env_allow and no network: the tool sees nothing of the host but /usr.
  req.limits = request.limits;
  // JSON escapes a control character in six bytes: room for the worst case.
  req.limits.max_output_bytes =
      std::max<int64_t>(req.limits.max_output_bytes, static_cast<int64_t>(request.max_result_bytes) * 6 + 64 * 1024);

  auto ran = sandbox::run_sandboxed(req);
  if (!ran) return failed(RunKind::sandbox, ran.error().code + ": " + ran.error().message);
  const sandbox::SandboxResult& r = ran.value();
  const std::string stderr_tail = tail(r.stderr_data, kMaxTracebackBytes);
  if (r.limit) return failed(RunKind::limit, "tool_function was stopped: " + r.limit->message, stderr_tail, r.wall_ms);
  if (r.timed_out)
    return failed(
        RunKind::timeout,
        "tool_function did not finish within " + std::to_string(request.limits.wall_timeout_ms) + " ms and was killed",
        stderr_tail, r.wall_ms);

  const std::string line = last_line(r.stdout_data);
  json reply = json::parse(utf8::repair(line), nullptr, /*allow_exceptions=*/false);
  if (line.empty() || reply.is_discarded() || !reply.is_object() || !reply.contains("ok") ||
      !reply["ok"].is_boolean()) {
    if (r.signal != 0 || r.exit_code != 0) {
      const std::string how = r.signal ? "was killed by signal " + std::to_string(r.signal)
                                       : "exited with status " + std::to_string(r.exit_code);
      return failed(RunKind::crash, "the tool's process " + how + " without a reply", stderr_tail, r.wall_ms);
    }
    return failed(RunKind::protocol,
                  "the tool's process exited without a JSON reply line (did the tool write to the reply stream, "
                  "close it or call os._exit?)" +
                      std::string(r.output_truncated ? " (output truncated)" : "") + "; its last line was '" +
                      tail(line, 200) + "'",
                  stderr_tail, r.wall_ms);
  }
  if (!reply["ok"].get<bool>()) {
    const json& err =
        reply.contains("error") && reply["error"].is_string() ? reply["error"] : json("Error: (no message)");
    const json& tb = reply.contains("traceback") && reply["traceback"].is_string() ? reply["traceback"] : json("");
    return failed(RunKind::tool_error, err.get<std::string>(), tail(tb.get<std::string>(), kMaxTracebackBytes),
                  r.wall_ms);
  }

  FunctionRun out;
  out.kind = RunKind::ok;
  out.wall_ms = r.wall_ms;
  if (reply.contains("signature") && reply["signature"].is_string())
    out.signature = reply["signature"].get<std::string>();
  out.result = reply.contains("result") ? reply["result"] : json(nullptr);
  out.truncated = reply.contains("truncated") && reply["truncated"].is_boolean() && reply["truncated"].get<bool>();
  // The runner cuts already; this keeps the promise whatever it sent.
  const std::string text = result_text(out.result);
  if (text.size() > request.max_result_bytes) {
    out.result = utf8::truncate(text, request.max_result_bytes);
    out.truncated = true;
  }
  return out;
}

}  // namespace kaisha::hiva
