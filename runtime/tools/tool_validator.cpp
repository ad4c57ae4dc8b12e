#include "runtime/tools/tool_validator.hpp"

#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::tools {
namespace {

std::string last_line(const std::string& s) {
  size_t end = s.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = s.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return s.substr(start, end - start + 1);
}

std::string tail(const std::string& s, size_t n = 300) {
  return s.size() <= n ? utf8::repair(s) : "..." + utf8::tail(utf8::repair(s), n);
}

Result<std::vector<Result<ValidatedTool>>> validate_batch(const std::vector<ToolCode>& sources,
                                                          const std::string& validator,
                                                          const sandbox::SandboxLimits& limits) {
  json tools = json::array();
  for (const auto& s : sources) tools.push_back({{"code", s.code}, {"filename", s.filename}, {"module", s.module}});
  sandbox::SandboxRequest req;
  req.argv = {"python3", "-I", "-B", "-c", validator};
  req.stdin_data = json{{"tools", tools}}.dump();
  req.limits = limits;  // a private tmpfs workspace: loading a tool touches no files
  auto ran = sandbox::run_sandboxed(req);
  if (!ran) return ran.error();
  if (ran->timed_out)
    return Error{"timeout", "loading the tool did not finish within " + std::to_string(limits.wall_timeout_ms) +
                                " ms (does its module run a loop at import time?)"};
  json reply = json::parse(utf8::repair(last_line(ran->stdout_data)), nullptr, false);
  if (reply.is_discarded() || !reply.is_object() || !reply.contains("results") || !reply["results"].is_array() ||
      reply["results"].size() != sources.size()) {
    std::string how = ran->signal ? "was killed by signal " + std::to_string(ran->signal)
                                  : "exited " + std::to_string(ran->exit_code);
    return Error{"tool_protocol", "the tool loader " + how +
                                      " without a result (does the module exit or crash "
                                      "at import time?); stderr: " +
                                      tail(ran->stderr_data)};
  }
  std::vector<Result<ValidatedTool>> out;
  for (const json& r : reply["results"]) {
    if (!r.value("ok", false)) {
      out.push_back(Error{"tool_invalid", r.value("type", std::string("Error")) + ": " +
                                              r.value("error", std::string("(no message)"))});
      continue;
    }
    ValidatedTool t;
    t.entry_class = r.value("entry_class", "");
    const json& spec = r["spec"];
    t.spec =
        llm::ToolSpec{spec.value("name", ""), spec.value("description", ""), spec.value("parameters", json::object())};
    t.costs = r.value("costs", json::object());
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Result<std::vector<Result<ValidatedTool>>> validate_python_tools(const std::vector<ToolCode>& sources,
                                                                 const sandbox::SandboxLimits& limits) {
  if (sources.empty()) return std::vector<Result<ValidatedTool>>{};
  auto validator = read_text_file(data_file("data/sandbox/tool_validator.py"));
  if (!validator) return Error{"io", "the tool validator is missing: " + validator.error().message};
  auto batch = validate_batch(sources, *validator, limits);
  if (batch || sources.size() == 1) return batch;
  // One module that exits or hangs at import spoils a batch: retry one by
  // one so the others still load and the culprit gets its own error.
  if (batch.error().code.rfind("sandbox_", 0) == 0) return batch;  // no sandbox at all: fail closed
  std::vector<Result<ValidatedTool>> out;
  for (const auto& s : sources) {
    auto one = validate_batch({s}, *validator, limits);
    if (!one)
      out.push_back(Error{"tool_invalid", one.error().message});
    else
      out.push_back(std::move(one->front()));
  }
  return out;
}

}  // namespace kaisha::tools
