#include "runtime/employee/kept_steps.hpp"

#include "runtime/driver/outcome_codec.hpp"

namespace kaisha::employee {

using driver::AskStep;

std::vector<AskStep> read_kept_steps(const std::vector<std::string>& texts) {
  std::vector<AskStep> out;
  for (const std::string& text : texts) {
    auto step = driver::decode_ask_step(text);
    if (!step.ok()) break;  // checked when the journal was read: a peer's slip runs the rest again
    out.push_back(std::move(step).value());
  }
  return out;
}

company::ToolResult tool_result_from(const json& j) {
  company::ToolResult r;
  if (!j.is_object()) return company::ToolResult::error("a kept tool result is not a JSON object", j);
  r.ok = j.value("status", "") == "success";
  r.message = j.contains("message") && j["message"].is_string() ? j["message"].get<std::string>() : "";
  r.output = j.contains("output") ? j["output"] : json(nullptr);
  for (const auto& [key, value] : j.items())
    if (key != "status" && key != "message" && key != "output") r.extra[key] = value;
  return r;
}

driver::Outcome kept_outcome(const AskStep& step, size_t n) {
  const driver::CallId id = n + 1;
  if (step.kind == AskStep::Kind::tool) return driver::ToolRan{id, tool_result_from(step.result)};
  driver::ModelAnswered a;
  a.id = id;
  a.ok = true;
  a.response = step.response;
  a.expense = step.expense;
  return a;
}

Result<driver::ReplayLog> kept_log(const std::vector<AskStep>& steps) {
  // Through the outcomes' text, as a strategy's kept outcomes are read.
  std::vector<std::string> texts;
  texts.reserve(steps.size());
  for (size_t n = 0; n < steps.size(); ++n) texts.push_back(driver::encode(kept_outcome(steps[n], n)));
  return driver::ReplayLog::from_records(texts);
}

}  // namespace kaisha::employee
