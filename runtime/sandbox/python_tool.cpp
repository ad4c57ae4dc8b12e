#include "runtime/sandbox/python_tool.hpp"

#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::sandbox {

namespace {

std::string tail(const std::string& s, size_t n = 400) {
  return s.size() <= n ? utf8::repair(s) : "..." + utf8::tail(utf8::repair(s), n);
}

// The last non-empty line: the runner's reply comes after anything that
// escaped to stdout before the runner took it over (e.g. interpreter noise).
std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = s.find_last_of('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

Result<json> run_python_tool(const std::string& code_file, const std::string& entry_class, const json& args_json,
                             const std::string& workspace, const SandboxLimits& limits, const ToolAccess& access) {
  auto runner = read_text_file(data_file("data/sandbox/tool_runner.py"));
  if (!runner) return Error{"io", "run_python_tool: tool runner missing: " + runner.error().message};
  auto code = read_text_file(code_file);
  if (!code) return Error{"io", "run_python_tool: " + code.error().message};
  if (!args_json.is_object())
    return Error{"tool_protocol", "run_python_tool: args for " + entry_class + " must be a JSON object"};

  SandboxRequest req;
  // -I: ignore PYTHON* variables and the user site; -B: no .pyc writes.
  req.argv = {"python3", "-I", "-B", "-c", runner.value()};
  req.stdin_data =
      json{{"code", code.value()}, {"filename", code_file}, {"entry_class", entry_class}, {"args", args_json}}.dump();
  req.workspace = workspace;
  req.env_allow = access.env_allow;
  req.share_network = access.network;
  req.limits = limits;
  auto ran = run_sandboxed(req);
  if (!ran) return ran.error();
  const SandboxResult& r = ran.value();
  const std::string where = "run_python_tool: " + code_file + " " + entry_class + ".run";
  if (r.limit) return Error{"limit", where + " was stopped: " + r.limit->message};
  if (r.timed_out)
    return Error{"timeout",
                 where + " exceeded the " + std::to_string(limits.wall_timeout_ms) + " ms wall clock and was killed"};

  std::string line = last_line(r.stdout_data);
  json reply = json::parse(utf8::repair(line), nullptr, /*allow_exceptions=*/false);
  if (line.empty() || reply.is_discarded() || !reply.is_object() || !reply.contains("ok")) {
    std::string how =
        r.signal ? "was killed by signal " + std::to_string(r.signal) : "exited " + std::to_string(r.exit_code);
    return Error{"tool_protocol", where + " " + how + " without a JSON reply line" +
                                      (r.output_truncated ? " (output truncated)" : "") + "; stdout: '" +
                                      tail(line, 200) + "'; stderr: " + tail(r.stderr_data)};
  }
  if (!reply.value("ok", false))
    return Error{"tool_error", where + " raised " + reply.value("type", std::string("an error")) + ": " +
                                   reply.value("error", std::string("(no message)"))};
  return reply.contains("result") ? reply["result"] : json(nullptr);
}

}  // namespace kaisha::sandbox
