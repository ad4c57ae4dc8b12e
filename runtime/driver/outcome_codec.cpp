#include "runtime/driver/outcome_codec.hpp"

#include <cstdint>
#include <exception>
#include <type_traits>
#include <vector>

#include <msgpack.hpp>

#include "runtime/core/json_msgpack.hpp"

namespace kaisha::driver {

namespace {

const char* kind_name(JudgeRuled::Kind k) {
  switch (k) {
    case JudgeRuled::Kind::verdict:
      return "verdict";
    case JudgeRuled::Kind::judge_failed:
      return "judge_failed";
    case JudgeRuled::Kind::no_answer:
      return "no_answer";
  }
  return "no_answer";
}

json to_json(const Outcome& o) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ModelAnswered>) {
          return {{"type", "model"},      {"id", x.id},        {"ok", x.ok},
                  {"refused", x.refused}, {"error", x.error},  {"response", struct_json(x.response)},
                  {"expense", x.expense}, {"budget", x.budget}};
        } else if constexpr (std::is_same_v<T, HireAnswered>) {
          return {{"type", "hire"},       {"id", x.id},       {"ok", x.ok},
                  {"refused", x.refused}, {"error", x.error}, {"budget", x.budget}};
        } else if constexpr (std::is_same_v<T, FireAnswered>) {
          return {{"type", "fire"},           {"id", x.id},       {"ok", x.ok},
                  {"not_hired", x.not_hired}, {"error", x.error}, {"budget", x.budget}};
        } else if constexpr (std::is_same_v<T, AskAnswered>) {
          return {{"type", "ask"},        {"id", x.id},        {"ok", x.ok},
                  {"refused", x.refused}, {"error", x.error},  {"reply", struct_json(x.reply)},
                  {"expense", x.expense}, {"budget", x.budget}};
        } else if constexpr (std::is_same_v<T, JudgeRuled>) {
          return {{"type", "judge"},
                  {"id", x.id},
                  {"kind", kind_name(x.kind)},
                  {"verdict",
                   {{"success", x.verdict.success()},
                    {"output", x.verdict.output},
                    {"error_information", x.verdict.error_information},
                    {"malformed", x.verdict.malformed}}},
                  {"error", x.error}};
        } else if constexpr (std::is_same_v<T, ToolRan>) {
          return {{"type", "tool"},
                  {"id", x.id},
                  {"ok", x.result.ok},
                  {"message", x.result.message},
                  {"output", x.result.output},
                  {"extra", x.result.extra}};
        } else if constexpr (std::is_same_v<T, BudgetRead>) {
          return {{"type", "budget"}, {"id", x.id}, {"view", x.view}};
        } else {
          static_assert(std::is_same_v<T, Recalled>);
          return {{"type", "recall"}, {"id", x.id}, {"memories", x.memories}};
        }
      },
      o);
}

// Reads the outcome in `j`; throws (json or msgpack errors) on a field of
// the wrong type, which decode() turns into an error.
Result<Outcome> from_json(const json& j) {
  const std::string type = j.at("type").get<std::string>();
  // Checked here: the json library converts any number, and a float out of
  // range is undefined behaviour.
  const json& raw_id = j.at("id");
  if (!raw_id.is_number_unsigned()) return Error{"replay", "an outcome's id is not a whole number ≥ 0"};
  const CallId id = raw_id.get<CallId>();
  if (type == "model") {
    ModelAnswered m{id,
                    j.at("ok").get<bool>(),
                    j.at("refused").get<bool>(),
                    j.at("error").get<std::string>(),
                    struct_from<llm::ChatResponse>(j.at("response")),
                    j.at("expense").get<double>(),
                    j.at("budget")};
    return Outcome{std::move(m)};
  }
  if (type == "hire")
    return Outcome{HireAnswered{id, j.at("ok").get<bool>(), j.at("refused").get<bool>(),
                                j.at("error").get<std::string>(), j.at("budget")}};
  if (type == "fire")
    return Outcome{FireAnswered{id, j.at("ok").get<bool>(), j.at("not_hired").get<bool>(),
                                j.at("error").get<std::string>(), j.at("budget")}};
  if (type == "ask") {
    AskAnswered a{id,
                  j.at("ok").get<bool>(),
                  j.at("refused").get<bool>(),
                  j.at("error").get<std::string>(),
                  struct_from<msg::AskReply>(j.at("reply")),
                  j.at("expense").get<double>(),
                  j.at("budget")};
    return Outcome{std::move(a)};
  }
  if (type == "judge") {
    JudgeRuled r;
    r.id = id;
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "verdict")
      r.kind = JudgeRuled::Kind::verdict;
    else if (kind == "judge_failed")
      r.kind = JudgeRuled::Kind::judge_failed;
    else if (kind == "no_answer")
      r.kind = JudgeRuled::Kind::no_answer;
    else
      return Error{"replay", "a judge outcome of unknown kind '" + kind + "'"};
    const json& v = j.at("verdict");
    r.verdict.status = v.at("success").get<bool>() ? planning::VerdictStatus::success : planning::VerdictStatus::error;
    r.verdict.output = v.at("output").get<std::string>();
    r.verdict.error_information = v.at("error_information").get<std::string>();
    r.verdict.malformed = v.at("malformed").get<bool>();
    r.error = j.at("error").get<std::string>();
    return Outcome{std::move(r)};
  }
  if (type == "tool") {
    company::ToolResult t{j.at("ok").get<bool>(), j.at("message").get<std::string>(), j.at("output"), j.at("extra")};
    return Outcome{ToolRan{id, std::move(t)}};
  }
  if (type == "budget") return Outcome{BudgetRead{id, j.at("view")}};
  if (type == "recall") return Outcome{Recalled{id, j.at("memories")}};
  return Error{"replay", "an outcome of unknown type '" + type + "'"};
}

}  // namespace

// Text is checked as UTF-8 where it enters; `replace` keeps a slip from
// throwing on the actor that records it.
std::string encode(const Outcome& o) { return to_json(o).dump(-1, ' ', false, json::error_handler_t::replace); }

Result<Outcome> decode(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error{"replay", "a recorded outcome is not a JSON object"};
  try {
    return from_json(j);
  } catch (const std::exception& e) {
    return Error{"replay", std::string("a recorded outcome could not be read: ") + e.what()};
  }
}

Outcome with_id(Outcome o, CallId id) {
  std::visit([id](auto& x) { x.id = id; }, o);
  return o;
}

}  // namespace kaisha::driver
