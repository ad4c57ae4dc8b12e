#include "runtime/driver/outcome_codec.hpp"

#include <cstdint>
#include <string_view>
#include <exception>
#include <type_traits>
#include <vector>

#include <msgpack.hpp>

#include "runtime/core/json_msgpack.hpp"
#include "runtime/core/json_string.hpp"

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

// ---- encode: the JSON text written directly ------------------------------
//
// The same JSON value to_json(o).dump() used to write (a journal's old
// records and new ones read alike), without building an nlohmann tree only
// to print it: an outcome is kept for every answer a task's driver is fed,
// and building and printing the tree was most of the journal thread's work
// per outcome (bench/HISTORY.md). Structs go through their MessagePack form,
// as struct_json() does, so a field added to one is written without
// touching this file.

// A MessagePack value as JSON text: what json::from_msgpack(...).dump()
// writes for it (a JSON field of a struct is packed as its text, so it is
// written as a string holding that text, as before).
void append_msgpack(std::string& out, const msgpack::object& o) {
  switch (o.type) {
    case msgpack::type::NIL:
      out += "null";
      return;
    case msgpack::type::BOOLEAN:
      out += o.via.boolean ? "true" : "false";
      return;
    case msgpack::type::POSITIVE_INTEGER:
      if (o.via.u64 <= static_cast<uint64_t>(INT64_MAX))
        append_json_integer(out, static_cast<int64_t>(o.via.u64));
      else
        append_json(out, json(o.via.u64));
      return;
    case msgpack::type::NEGATIVE_INTEGER:
      append_json_integer(out, o.via.i64);
      return;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64:
      append_json(out, json(o.via.f64));
      return;
    case msgpack::type::STR:
      append_json_string(out, std::string_view(o.via.str.ptr, o.via.str.size));
      return;
    case msgpack::type::ARRAY:
      out += '[';
      for (uint32_t i = 0; i < o.via.array.size; ++i) {
        if (i) out += ',';
        append_msgpack(out, o.via.array.ptr[i]);
      }
      out += ']';
      return;
    case msgpack::type::MAP:
      out += '{';
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        const msgpack::object_kv& kv = o.via.map.ptr[i];
        if (i) out += ',';
        if (kv.key.type != msgpack::type::STR) throw msgpack::type_error();  // our structs' keys are names
        append_json_string(out, std::string_view(kv.key.via.str.ptr, kv.key.via.str.size));
        out += ':';
        append_msgpack(out, kv.val);
      }
      out += '}';
      return;
    default:  // BIN and EXT: no struct of ours packs them
      throw msgpack::type_error();
  }
}

template <class T>
void append_struct(std::string& out, const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  msgpack::object_handle oh = msgpack::unpack(buf.data(), buf.size());
  append_msgpack(out, oh.get());
}

// A JSON object written field by field: `{`, then each field() adds
// `"<name>":<value>`, and close() the `}`.
class Record {
 public:
  Record() { out_ += '{'; }
  explicit Record(std::string_view type) : Record() {
    out_.reserve(256);
    field("type", type);
  }
  Record& field(std::string_view name, bool v) { return key(name), out_ += v ? "true" : "false", *this; }
  Record& field(std::string_view name, CallId v) { return key(name), append_json(out_, json(v)), *this; }
  Record& field(std::string_view name, double v) { return key(name), append_json(out_, json(v)), *this; }
  Record& field(std::string_view name, std::string_view v) { return key(name), append_json_string(out_, v), *this; }
  Record& field(std::string_view name, const char* v) { return field(name, std::string_view(v)); }
  Record& field(std::string_view name, const std::string& v) { return field(name, std::string_view(v)); }
  Record& field(std::string_view name, const json& v) { return key(name), append_json(out_, v), *this; }
  Record& field(std::string_view name, Record& nested) { return key(name), out_ += nested.close(), *this; }
  template <class T>
  Record& struct_field(std::string_view name, const T& v) {
    return key(name), append_struct(out_, v), *this;
  }
  std::string close() {  // leaves the record empty
    out_ += '}';
    return std::move(out_);
  }

 private:
  void key(std::string_view name) {
    if (out_.size() > 1) out_ += ',';
    append_json_string(out_, name);
    out_ += ':';
  }
  std::string out_;
};

std::string encode_text(const Outcome& o) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ModelAnswered>) {
          return Record("model")
              .field("id", x.id)
              .field("ok", x.ok)
              .field("refused", x.refused)
              .field("error", x.error)
              .struct_field("response", x.response)
              .field("expense", x.expense)
              .field("budget", x.budget)
              .close();
        } else if constexpr (std::is_same_v<T, HireAnswered>) {
          return Record("hire")
              .field("id", x.id)
              .field("ok", x.ok)
              .field("refused", x.refused)
              .field("error", x.error)
              .field("budget", x.budget)
              .close();
        } else if constexpr (std::is_same_v<T, FireAnswered>) {
          return Record("fire")
              .field("id", x.id)
              .field("ok", x.ok)
              .field("not_hired", x.not_hired)
              .field("error", x.error)
              .field("budget", x.budget)
              .close();
        } else if constexpr (std::is_same_v<T, AskAnswered>) {
          return Record("ask")
              .field("id", x.id)
              .field("ok", x.ok)
              .field("refused", x.refused)
              .field("error", x.error)
              .struct_field("reply", x.reply)
              .field("expense", x.expense)
              .field("budget", x.budget)
              .close();
        } else if constexpr (std::is_same_v<T, JudgeRuled>) {
          return Record("judge")
              .field("id", x.id)
              .field("kind", kind_name(x.kind))
              .field("verdict", Record()
                                    .field("success", x.verdict.success())
                                    .field("output", x.verdict.output)
                                    .field("error_information", x.verdict.error_information)
                                    .field("malformed", x.verdict.malformed))
              .field("error", x.error)
              .close();
        } else if constexpr (std::is_same_v<T, ToolRan>) {
          return Record("tool")
              .field("id", x.id)
              .field("ok", x.result.ok)
              .field("message", x.result.message)
              .field("output", x.result.output)
              .field("extra", x.result.extra)
              .close();
        } else if constexpr (std::is_same_v<T, BudgetRead>) {
          return Record("budget").field("id", x.id).field("view", x.view).close();
        } else {
          static_assert(std::is_same_v<T, Recalled>);
          return Record("recall").field("id", x.id).field("memories", x.memories).close();
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

// Text is checked as UTF-8 where it enters; a slip is written as U+FFFD
// rather than throwing on the actor that records it.
std::string encode(const Outcome& o) { return encode_text(o); }

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
