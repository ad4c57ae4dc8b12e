#include "runtime/driver/ask_step.hpp"

#include <exception>

#include "runtime/core/json_msgpack.hpp"

namespace kaisha::driver {

// Text is checked as UTF-8 where it enters; `replace` keeps a slip from
// throwing on the actor that keeps it.
std::string encode(const AskStep& s) {
  json j;
  if (s.kind == AskStep::Kind::model) {
    j = {{"kind", "model"}, {"response", struct_json(s.response)}, {"paid_by_employee", s.paid_by_employee}};
  } else {
    j = {{"kind", "tool"}, {"call_id", s.call_id}, {"tool", s.tool}, {"result", s.result}};
  }
  j["expense"] = s.expense;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<AskStep> decode_ask_step(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error{"replay", "a kept ask step is not a JSON object"};
  try {
    AskStep s;
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "model") {
      s.kind = AskStep::Kind::model;
      s.response = struct_from<llm::ChatResponse>(j.at("response"));
      s.paid_by_employee = j.at("paid_by_employee").get<bool>();
    } else if (kind == "tool") {
      s.kind = AskStep::Kind::tool;
      s.call_id = j.at("call_id").get<std::string>();
      s.tool = j.at("tool").get<std::string>();
      s.result = j.at("result");
    } else {
      return Error{"replay", "a kept ask step of unknown kind '" + kind + "'"};
    }
    s.expense = j.at("expense").get<double>();
    return s;
  } catch (const std::exception& e) {
    return Error{"replay", std::string("a kept ask step could not be read: ") + e.what()};
  }
}

}  // namespace kaisha::driver
