#include "runtime/driver/outcome_codec.hpp"

#include <string>

#include <gtest/gtest.h>

#include "runtime/core/json_msgpack.hpp"

namespace kaisha::driver {
namespace {

// Every outcome type survives encode/decode with every field it carries.
TEST(OutcomeCodec, AModelAnswerComesBackWholeWithToolCallsAndJapanese) {
  ModelAnswered m;
  m.id = 7;
  m.ok = true;
  m.response.model = "mock";
  m.response.message.role = llm::Role::assistant;
  m.response.message.content = "東京の天気は晴れ 🌤";
  m.response.message.tool_calls.push_back(llm::ToolCall{"c1", "HireAgent", R"({"name":"寿司"})"});
  m.response.usage.input_tokens = 120;
  m.response.usage.output_tokens = 7;
  m.response.finish_reason = "tool_calls";
  m.expense = 0.00125;
  m.budget = json{{"remaining_expense", 9.5}};

  auto back = decode(encode(m));
  ASSERT_TRUE(back.ok()) << back.error().message;
  const auto* r = std::get_if<ModelAnswered>(&*back);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->id, 7u);
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->response.message.content, "東京の天気は晴れ 🌤");
  ASSERT_EQ(r->response.message.tool_calls.size(), 1u);
  EXPECT_EQ(r->response.message.tool_calls[0].name, "HireAgent");
  EXPECT_EQ(r->response.message.tool_calls[0].arguments, R"({"name":"寿司"})");
  EXPECT_EQ(r->response.usage.input_tokens, 120);
  EXPECT_EQ(r->response.usage.output_tokens, 7);
  EXPECT_EQ(r->response.finish_reason, "tool_calls");
  EXPECT_DOUBLE_EQ(r->expense, 0.00125);
  EXPECT_EQ(r->budget, m.budget);
}

TEST(OutcomeCodec, EveryOtherOutcomeTypeComesBack) {
  AskAnswered a;
  a.id = 3;
  a.ok = true;
  a.reply.agent = "Worker1";
  a.reply.output = "done";
  a.reply.extra_expense = 0.5;
  a.reply.tool_requests.push_back(llm::ToolCall{"t", "read_file", R"({"path":"a.txt"})"});
  a.expense = 0.75;
  auto ask = decode(encode(a));
  ASSERT_TRUE(ask.ok()) << ask.error().message;
  const auto& ra = std::get<AskAnswered>(*ask);
  EXPECT_EQ(ra.reply.agent, "Worker1");
  EXPECT_EQ(ra.reply.output, "done");
  EXPECT_DOUBLE_EQ(ra.reply.extra_expense, 0.5);
  ASSERT_EQ(ra.reply.tool_requests.size(), 1u);
  EXPECT_EQ(ra.reply.tool_requests[0].arguments, R"({"path":"a.txt"})");
  EXPECT_DOUBLE_EQ(ra.expense, 0.75);

  HireAnswered h{4, false, true, "over budget", json{{"x", 1}}};
  const auto rh = std::get<HireAnswered>(decode(encode(h)).value());
  EXPECT_FALSE(rh.ok);
  EXPECT_TRUE(rh.refused);
  EXPECT_EQ(rh.error, "over budget");

  FireAnswered f{5, false, true, "not hired", json::object()};
  const auto rf = std::get<FireAnswered>(decode(encode(f)).value());
  EXPECT_TRUE(rf.not_hired);
  EXPECT_EQ(rf.id, 5u);

  JudgeRuled j;
  j.id = 6;
  j.kind = JudgeRuled::Kind::verdict;
  j.verdict.status = planning::VerdictStatus::error;
  j.verdict.output = "wrong";
  j.verdict.error_information = "the sum is 5";
  j.verdict.malformed = true;
  const auto rj = std::get<JudgeRuled>(decode(encode(j)).value());
  EXPECT_EQ(rj.kind, JudgeRuled::Kind::verdict);
  EXPECT_FALSE(rj.verdict.success());
  EXPECT_EQ(rj.verdict.error_information, "the sum is 5");
  EXPECT_TRUE(rj.verdict.malformed);
  JudgeRuled n{8, JudgeRuled::Kind::no_answer, {}, "timeout"};
  EXPECT_EQ(std::get<JudgeRuled>(decode(encode(n)).value()).kind, JudgeRuled::Kind::no_answer);

  ToolRan t{9, company::ToolResult::error("no such file", json{{"path", "x"}})};
  t.result.extra = json{{"remaining", 3}};
  const auto rt = std::get<ToolRan>(decode(encode(t)).value());
  EXPECT_FALSE(rt.result.ok);
  EXPECT_EQ(rt.result.message, "no such file");
  EXPECT_EQ(rt.result.output, (json{{"path", "x"}}));
  EXPECT_EQ(rt.result.extra, (json{{"remaining", 3}}));

  EXPECT_EQ(std::get<BudgetRead>(decode(encode(BudgetRead{10, json{{"a", 1}}})).value()).view, (json{{"a", 1}}));
  EXPECT_EQ(std::get<Recalled>(decode(encode(Recalled{11, json{{"memories", json::array()}}})).value()).memories,
            (json{{"memories", json::array()}}));
}

TEST(OutcomeCodec, TextItCannotReadIsAnErrorSayingWhy) {
  for (const std::string bad : {"", "not json", "[1,2]", R"({"type":"model"})", R"({"type":"teleport","id":1})",
                                R"({"type":"hire","id":"one","ok":true,"refused":false,"error":"","budget":{}})",
                                R"({"type":"judge","id":1,"kind":"maybe","verdict":{},"error":""})"}) {
    auto r = decode(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("outcome"), std::string::npos) << r.error().message;
    }
  }
}

// Records are written by hand now; a journal keeps records of both writers,
// so the text must be the same JSON value the nlohmann tree was printed as.
TEST(OutcomeCodec, ARecordIsTheSameJsonValueTheTreeWasPrintedAs) {
  ModelAnswered m;
  m.id = 12;
  m.ok = true;
  m.response.model = "mock";
  m.response.message.role = llm::Role::assistant;
  m.response.message.content = "東京 \"quoted\"\n\x01 and a stray byte \xff";
  m.response.message.tool_calls.push_back(llm::ToolCall{"c1", "HireAgent", R"({"name":"寿司"})"});
  m.response.usage.input_tokens = 120;
  m.response.finish_reason = "tool_calls";
  m.expense = 0.1 + 0.2;
  m.budget = json{{"remaining_expense", 9.5}, {"n", -3}, {"list", {1, "two", nullptr}}};
  const json model_tree{{"type", "model"},      {"id", m.id},        {"ok", m.ok},
                        {"refused", m.refused}, {"error", m.error},  {"response", struct_json(m.response)},
                        {"expense", m.expense}, {"budget", m.budget}};
  EXPECT_EQ(json::parse(encode(m)), json::parse(model_tree.dump(-1, ' ', false, json::error_handler_t::replace)));

  AskAnswered a;
  a.id = 3;
  a.ok = false;
  a.refused = true;
  a.error = "over budget";
  a.reply.agent = "Worker1";
  a.reply.tool_requests.push_back(llm::ToolCall{"t", "read_file", R"({"path":"a.txt"})"});
  a.expense = 1e-9;
  const json ask_tree{{"type", "ask"},        {"id", a.id},        {"ok", a.ok},
                      {"refused", a.refused}, {"error", a.error},  {"reply", struct_json(a.reply)},
                      {"expense", a.expense}, {"budget", a.budget}};
  EXPECT_EQ(json::parse(encode(a)), ask_tree);

  JudgeRuled j;
  j.id = 5;
  j.kind = JudgeRuled::Kind::verdict;
  j.verdict.status = planning::VerdictStatus::success;
  j.verdict.output = "fine";
  const json judge_tree{
      {"type", "judge"},
      {"id", 5},
      {"kind", "verdict"},
      {"verdict", {{"success", true}, {"output", "fine"}, {"error_information", ""}, {"malformed", false}}},
      {"error", ""}};
  EXPECT_EQ(json::parse(encode(j)), judge_tree);
  EXPECT_EQ(json::parse(encode(FireAnswered{9, false, true, "no such agent", json::object()})),
            (json{{"type", "fire"},
                  {"id", 9},
                  {"ok", false},
                  {"not_hired", true},
                  {"error", "no such agent"},
                  {"budget", json::object()}}));
}

TEST(OutcomeCodec, WithIdRenumbersAnyOutcome) {
  Outcome o = ToolRan{3, company::ToolResult::success("ok")};
  EXPECT_EQ(std::get<ToolRan>(with_id(o, 41)).id, 41u);
}

}  // namespace
}  // namespace kaisha::driver

namespace kaisha::driver {
namespace {

// Found by the outcome_record fuzzer: an id written as a float too big for
// an id was converted with undefined behaviour.
TEST(OutcomeCodec, AnIdThatIsNotAWholeNumberIsRefused) {
  for (const std::string id : {"2.888e+23", "-1", "1.5", "\"7\""}) {
    auto o = decode(R"({"type":"budget","id":)" + id + R"(,"view":{}})");
    ASSERT_FALSE(o.ok()) << id;
    EXPECT_NE(o.error().message.find("id"), std::string::npos) << o.error().message;
  }
  EXPECT_TRUE(decode(R"({"type":"budget","id":7,"view":{}})").ok());
}

}  // namespace
}  // namespace kaisha::driver
