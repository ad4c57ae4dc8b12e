// Spans as OTLP/HTTP JSON: the encoding field by field (hex ids, string
// nanoseconds, integer enums, typed attributes), the round trip, and the
// decoder's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/otlp_json.hpp"

namespace kaisha::telemetry {
namespace {

Span chat_span() {
  Span s;
  s.trace_id = "5b8efff798038103d269b633813fc60c";
  s.span_id = "eee19b7ec3c1b174";
  s.parent_span_id = "eee19b7ec3c1b173";
  s.name = attr::chat_span_name("gpt-4o");
  s.kind = SpanKind::client;
  s.start_unix_ns = 1544712660000000000;
  s.end_unix_ns = 1544712661000000001;
  s.set(attr::kGenAiOperationName, attr::kOperationChat)
      .set(attr::kGenAiRequestModel, std::string("gpt-4o"))
      .set(attr::kGenAiUsageInputTokens, 9007199254740993LL)  // 2^53 + 1: not exact as a double
      .set(attr::kKaishaCostUsd, 0.25)
      .set("kaisha.cached", false);
  s.status = SpanStatus::error;
  s.status_message = "timeout";
  return s;
}

const json& first_span(const json& request) { return request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]; }

TEST(OtlpJson, EncodesTheEnvelope) {
  const json r = otlp_trace_request({"node-a", {chat_span()}});
  ASSERT_EQ(r["resourceSpans"].size(), 1u);
  const json& rs = r["resourceSpans"][0];
  EXPECT_EQ(rs["resource"]["attributes"], json::parse(R"([{"key":"service.name","value":{"stringValue":"kaisha"}},
                            {"key":"service.instance.id","value":{"stringValue":"node-a"}},
                            {"key":"kaisha.node","value":{"stringValue":"node-a"}}])"));
  ASSERT_EQ(rs["scopeSpans"].size(), 1u);
  EXPECT_EQ(rs["scopeSpans"][0]["scope"]["name"], "kaisha");
  EXPECT_EQ(rs["scopeSpans"][0]["scope"]["version"], kaisha_version());
  EXPECT_STRNE(kaisha_version(), "");
}

TEST(OtlpJson, WithoutANodeTheResourceSaysOnlyTheService) {
  const json r = otlp_trace_request({"", {chat_span()}});
  EXPECT_EQ(r["resourceSpans"][0]["resource"]["attributes"],
            json::parse(R"([{"key":"service.name","value":{"stringValue":"kaisha"}}])"));
}

TEST(OtlpJson, EncodesASpanAsTheProtocolsJsonMappingAsks) {
  const json span = first_span(otlp_trace_request({"n", {chat_span()}}));
  // Hex ids (not base64), decimal-string nanoseconds, the integer kind.
  EXPECT_EQ(span["traceId"], "5b8efff798038103d269b633813fc60c");
  EXPECT_EQ(span["spanId"], "eee19b7ec3c1b174");
  EXPECT_EQ(span["parentSpanId"], "eee19b7ec3c1b173");
  EXPECT_EQ(span["name"], "chat gpt-4o");
  EXPECT_EQ(span["kind"], 3);
  EXPECT_EQ(span["startTimeUnixNano"], "1544712660000000000");
  EXPECT_EQ(span["endTimeUnixNano"], "1544712661000000001");
  EXPECT_EQ(span["status"], json::parse(R"({"code":2,"message":"timeout"})"));
  // Attributes in the order set, each with its own AnyValue field; int64 as a string.
  EXPECT_EQ(span["attributes"], json::parse(R"([
    {"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},
    {"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},
    {"key":"gen_ai.usage.input_tokens","value":{"intValue":"9007199254740993"}},
    {"key":"kaisha.cost.usd","value":{"doubleValue":0.25}},
    {"key":"kaisha.cached","value":{"boolValue":false}}])"));
}

TEST(OtlpJson, GoldenTextOfASmallRequest) {
  Span s;
  s.trace_id = "0123456789abcdef0123456789abcdef";
  s.span_id = "0123456789abcdef";
  s.name = "execute_tool Calculator";
  s.start_unix_ns = 1;
  s.end_unix_ns = 2;
  s.set("gen_ai.tool.name", "Calculator");
  s.status = SpanStatus::ok;
  const std::string expected =
      std::string(
          R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"kaisha"}}]},)") +
      R"("scopeSpans":[{"scope":{"name":"kaisha","version":")" + kaisha_version() + R"("},"spans":[)" +
      R"({"traceId":"0123456789abcdef0123456789abcdef","spanId":"0123456789abcdef","name":"execute_tool Calculator",)" +
      R"("kind":1,"startTimeUnixNano":"1","endTimeUnixNano":"2",)" +
      R"("attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"Calculator"}}],"status":{"code":1}}]}]}]})";
  EXPECT_EQ(encode_otlp_json({"", {s}}), expected);
}

TEST(OtlpJson, EveryKindAndStatusHasItsProtocolInteger) {
  EXPECT_EQ(otlp_kind(SpanKind::internal), 1);
  EXPECT_EQ(otlp_kind(SpanKind::server), 2);
  EXPECT_EQ(otlp_kind(SpanKind::client), 3);
  EXPECT_EQ(otlp_kind(SpanKind::producer), 4);
  EXPECT_EQ(otlp_kind(SpanKind::consumer), 5);
  EXPECT_EQ(otlp_status_code(SpanStatus::unset), 0);
  EXPECT_EQ(otlp_status_code(SpanStatus::ok), 1);
  EXPECT_EQ(otlp_status_code(SpanStatus::error), 2);
}

TEST(OtlpJson, ARootSpanHasNoParentSpanIdAndAnUnsetStatusHasNoMessage) {
  Span s = chat_span();
  s.parent_span_id.clear();
  s.status = SpanStatus::unset;
  s.status_message.clear();
  const json span = first_span(otlp_trace_request({"n", {s}}));
  EXPECT_FALSE(span.contains("parentSpanId"));
  EXPECT_EQ(span["status"], json::parse(R"({"code":0})"));
}

TEST(OtlpJson, AnEmptyBatchIsAnEmptyRequest) {
  EXPECT_EQ(otlp_trace_request({"n", {}}), json::parse(R"({"resourceSpans":[]})"));
}

TEST(OtlpJson, NegativeTimesAreWrittenAsZero) {
  Span s = chat_span();
  s.start_unix_ns = -5;
  EXPECT_EQ(first_span(otlp_trace_request({"n", {s}}))["startTimeUnixNano"], "0");
}

TEST(OtlpJson, NonFiniteDoublesAreTheMappingsStrings) {
  Span s = chat_span();
  s.attributes.clear();
  s.set("nan", std::numeric_limits<double>::quiet_NaN())
      .set("inf", std::numeric_limits<double>::infinity())
      .set("-inf", -std::numeric_limits<double>::infinity());
  const json a = first_span(otlp_trace_request({"n", {s}}))["attributes"];
  EXPECT_EQ(a[0]["value"]["doubleValue"], "NaN");
  EXPECT_EQ(a[1]["value"]["doubleValue"], "Infinity");
  EXPECT_EQ(a[2]["value"]["doubleValue"], "-Infinity");
  auto back = decode_otlp_json(encode_otlp_json({"n", {s}}));
  ASSERT_TRUE(back.ok()) << back.error().message;
  const auto& attrs = (*back)[0].spans[0].attributes;
  EXPECT_TRUE(std::isnan(std::get<double>(attrs[0].value)));
  EXPECT_EQ(std::get<double>(attrs[1].value), std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::get<double>(attrs[2].value), -std::numeric_limits<double>::infinity());
}

TEST(OtlpJson, AttributeSetterTypesByArgument) {
  Span s;
  s.set("text", "literal").set("int", 7).set("unsigned", 7u).set("flag", true).set("ratio", 0.5f);
  EXPECT_TRUE(std::holds_alternative<std::string>(*s.find("text")));
  EXPECT_EQ(std::get<int64_t>(*s.find("int")), 7);
  EXPECT_EQ(std::get<int64_t>(*s.find("unsigned")), 7);
  EXPECT_EQ(std::get<bool>(*s.find("flag")), true);
  EXPECT_EQ(std::get<double>(*s.find("ratio")), 0.5);
  EXPECT_EQ(s.find("absent"), nullptr);
}

TEST(OtlpJson, JapaneseAndEmojiSurviveAndBadBytesBecomeReplacementCharacters) {
  Span s = chat_span();
  s.name = "chat 日本語モデル";
  s.attributes.clear();
  s.set("kaisha.note", "こんにちは 🌸🚀");
  s.set("kaisha.bad", std::string("a\xff"
                                  "b"));
  const std::string text = encode_otlp_json({"ノード", {s}});
  EXPECT_NE(text.find("こんにちは 🌸🚀"), std::string::npos);  // written as UTF-8, not \u escapes
  auto back = decode_otlp_json(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ((*back)[0].node, "ノード");
  EXPECT_EQ((*back)[0].spans[0].name, "chat 日本語モデル");
  EXPECT_EQ(std::get<std::string>(*(*back)[0].spans[0].find("kaisha.note")), "こんにちは 🌸🚀");
  EXPECT_EQ(std::get<std::string>(*(*back)[0].spans[0].find("kaisha.bad")),
            "a\xEF\xBF\xBD"
            "b");
}

void expect_same(const Span& a, const Span& b) {
  EXPECT_EQ(a.trace_id, b.trace_id);
  EXPECT_EQ(a.span_id, b.span_id);
  EXPECT_EQ(a.parent_span_id, b.parent_span_id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.start_unix_ns, b.start_unix_ns);
  EXPECT_EQ(a.end_unix_ns, b.end_unix_ns);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.status_message, b.status_message);
  ASSERT_EQ(a.attributes.size(), b.attributes.size());
  for (size_t i = 0; i < a.attributes.size(); ++i) {
    EXPECT_EQ(a.attributes[i].key, b.attributes[i].key);
    EXPECT_EQ(a.attributes[i].value, b.attributes[i].value) << a.attributes[i].key;
  }
}

TEST(OtlpJson, EncodeThenDecodeGivesTheSameSpans) {
  std::vector<Span> spans;
  for (SpanKind kind :
       {SpanKind::internal, SpanKind::server, SpanKind::client, SpanKind::producer, SpanKind::consumer}) {
    Span s = chat_span();
    s.kind = kind;
    s.span_id[0] = static_cast<char>('a' + static_cast<int>(kind));
    s.set("negative", static_cast<int64_t>(std::numeric_limits<int64_t>::min()));
    s.set("max", std::numeric_limits<int64_t>::max());
    spans.push_back(s);
  }
  spans[1].status = SpanStatus::ok;
  spans[1].status_message.clear();
  spans[2].parent_span_id.clear();
  auto back = decode_otlp_json(encode_otlp_json({"node-b", spans}));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].node, "node-b");
  ASSERT_EQ((*back)[0].spans.size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i) expect_same((*back)[0].spans[i], spans[i]);
}

TEST(OtlpJson, DecodesTheProtocolsOwnExampleLeniently) {
  // opentelemetry-proto examples/trace.json, shortened: uppercase hex ids and
  // timestamps as JSON numbers, both of which a receiver must accept, and an
  // unknown key it must ignore.
  auto back = decode_otlp_json(R"({"resourceSpans":[{
      "resource":{"attributes":[{"key":"service.name","value":{"stringValue":"my.service"}},
                                {"key":"service.instance.id","value":{"stringValue":"i-1"}}]},
      "scopeSpans":[{"scope":{"name":"my.library","version":"1.0.0"},
        "spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174",
                  "parentSpanId":"EEE19B7EC3C1B173","name":"I'm a server span",
                  "startTimeUnixNano":1544712660000000000,"endTimeUnixNano":1544712661000000000,
                  "kind":2,"futureField":{"x":1},
                  "attributes":[{"key":"my.span.attr","value":{"stringValue":"some value"}},
                                {"key":"n","value":{"intValue":42}}]}]}]}]})");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].node, "i-1");  // service.instance.id when there is no kaisha.node
  const Span& s = (*back)[0].spans.at(0);
  EXPECT_EQ(s.trace_id, "5b8efff798038103d269b633813fc60c");
  EXPECT_EQ(s.span_id, "eee19b7ec3c1b174");
  EXPECT_EQ(s.parent_span_id, "eee19b7ec3c1b173");
  EXPECT_EQ(s.kind, SpanKind::server);
  EXPECT_EQ(s.start_unix_ns, 1544712660000000000);
  EXPECT_EQ(s.status, SpanStatus::unset);
  EXPECT_EQ(std::get<int64_t>(*s.find("n")), 42);
}

TEST(OtlpJson, AbsentOptionalFieldsReadAsDefaults) {
  auto back = decode_otlp_json(R"({"resourceSpans":[{"scopeSpans":[{"spans":[
      {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","kind":0,"parentSpanId":""}]}]}]})");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const Span& s = (*back)[0].spans.at(0);
  EXPECT_EQ(s.kind, SpanKind::internal);  // SPAN_KIND_UNSPECIFIED reads as internal
  EXPECT_EQ(s.parent_span_id, "");
  EXPECT_EQ(s.name, "");
  EXPECT_TRUE(s.attributes.empty());
  EXPECT_EQ((*back)[0].node, "");
  auto empty = decode_otlp_json("{}");
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->empty());
}

struct BadInput {
  const char* span_json;  // placed as the only span of a request
  const char* error;      // a part of the message
};

std::string request_with_span(const std::string& span) {
  return R"({"resourceSpans":[{"scopeSpans":[{"spans":[)" + span + "]}]}]}";
}

TEST(OtlpJson, TheDecoderNamesTheFieldThatIsWrong) {
  const std::string ids = R"("traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174")";
  const std::string at = "resourceSpans[0].scopeSpans[0].spans[0].";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"spanId":"eee19b7ec3c1b174"})", at + "traceId: is required"},
      {R"({"traceId":"5b8efff798038103d269b633813fc60c"})", at + "spanId: is required"},
      {R"({"traceId":"5b8e","spanId":"eee19b7ec3c1b174"})", at + "traceId: expected 32 hex digits"},
      {R"({"traceId":"W44f93/4A4PSabYzgT/GDA==","spanId":"eee19b7ec3c1b174"})", at + "traceId: expected 32 hex digits"},
      {R"({"traceId":"00000000000000000000000000000000","spanId":"eee19b7ec3c1b174"})", at + "traceId: an all-zero id"},
      {R"({"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b17g"})",
       at + "spanId: expected 16 hex digits"},
      {"{" + ids + R"(,"parentSpanId":"0000000000000000"})", at + "parentSpanId: an all-zero id"},
      {"{" + ids + R"(,"traceId":7})", at + "traceId: expected a hex string"},
      {"{" + ids + R"(,"name":7})", at + "name: expected a string"},
      {"{" + ids + R"(,"kind":"SPAN_KIND_SERVER"})", at + "kind: expected the enum's integer value"},
      {"{" + ids + R"(,"kind":6})", at + "kind: expected an integer from 0 to 5"},
      {"{" + ids + R"(,"startTimeUnixNano":"12x"})", at + "startTimeUnixNano: expected a decimal integer"},
      {"{" + ids + R"(,"startTimeUnixNano":"-1"})", at + "startTimeUnixNano: expected a non-negative integer"},
      {"{" + ids + R"(,"endTimeUnixNano":"99999999999999999999"})", at + "endTimeUnixNano: out of range"},
      {"{" + ids + R"(,"endTimeUnixNano":1.5})", at + "endTimeUnixNano: expected an integer"},
      {"{" + ids + R"(,"status":{"code":3}})", at + "status.code: expected an integer from 0 to 2"},
      {"{" + ids + R"(,"status":"ok"})", at + "status: expected an object"},
      {"{" + ids + R"(,"attributes":{}})", at + "attributes: expected an array"},
      {"{" + ids + R"(,"attributes":[{"key":"k"}]})", at + "attributes[0].value: is required"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{}}]})",
       at + "attributes[0].value: expected one of stringValue"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{"intValue":"1.5"}}]})",
       at + "attributes[0].value.intValue: expected a decimal integer"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{"boolValue":"true"}}]})",
       at + "attributes[0].value.boolValue: expected true or false"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{"doubleValue":"x"}}]})",
       at + "attributes[0].value.doubleValue: expected a number"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{"stringValue":1}}]})",
       at + "attributes[0].value.stringValue: expected a string"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{"arrayValue":{"values":[]}}}]})",
       at + "attributes[0].value.arrayValue: is not supported"},
      {"{" + ids + R"(,"attributes":[{"key":"k","value":{"stringValue":"a","intValue":"1"}}]})",
       at + "attributes[0].value: has both stringValue and intValue"},
      {"[]", at.substr(0, at.size() - 1) + ": expected an object"},
  };
  for (const auto& [span, error] : cases) {
    auto r = decode_otlp_json(request_with_span(span));
    ASSERT_FALSE(r.ok()) << span;
    EXPECT_EQ(r.error().code, "otlp");
    EXPECT_NE(r.error().message.find(error), std::string::npos) << span << "\n  got: " << r.error().message;
  }
  // The valid span those cases vary decodes, so each failure is its own.
  EXPECT_TRUE(decode_otlp_json(request_with_span("{" + ids + "}")).ok());
}

TEST(OtlpJson, TheDecoderRejectsABadEnvelope) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not JSON"},
      {"[]", "request: expected an ExportTraceServiceRequest object"},
      {R"({"resourceSpans":{}})", "request.resourceSpans: expected an array"},
      {R"({"resourceSpans":[1]})", "resourceSpans[0]: expected an object"},
      {R"({"resourceSpans":[{"scopeSpans":{}}]})", "resourceSpans[0].scopeSpans: expected an array"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":"x"}]}]})",
       "resourceSpans[0].scopeSpans[0].spans: expected an array"},
      {R"({"resourceSpans":[{"resource":{"attributes":[{"key":"a","value":{"intValue":"z"}}]}}]})",
       "resourceSpans[0].resource.attributes[0].value.intValue: expected a decimal integer"},
  };
  for (const auto& [text, error] : cases) {
    auto r = decode_otlp_json(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find(error), std::string::npos) << text << "\n  got: " << r.error().message;
  }
}

TEST(OtlpJson, ReadsATraceFileLineByLine) {
  Span a = chat_span();
  Span b = chat_span();
  b.span_id = "eee19b7ec3c1b175";
  const std::string text = encode_otlp_json({"n1", {a}}) + "\n\n" + encode_otlp_json({"n2", {a, b}}) + "\n";
  auto batches = decode_otlp_jsonl(text);
  ASSERT_TRUE(batches.ok()) << batches.error().message;
  ASSERT_EQ(batches->size(), 2u);
  EXPECT_EQ((*batches)[0].node, "n1");
  EXPECT_EQ((*batches)[1].node, "n2");
  EXPECT_EQ((*batches)[1].spans.size(), 2u);
  auto bad = decode_otlp_jsonl(encode_otlp_json({"n1", {a}}) + "\n\n{\"resourceSpans\":5}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("line 3: ", 0), 0u) << bad.error().message;
}

TEST(GenAiAttributes, NamesFollowTheSemanticConventions) {
  EXPECT_STREQ(attr::kGenAiOperationName, "gen_ai.operation.name");
  EXPECT_STREQ(attr::kGenAiProviderName, "gen_ai.provider.name");
  EXPECT_STREQ(attr::kGenAiSystem, "gen_ai.system");
  EXPECT_STREQ(attr::kGenAiUsageInputTokens, "gen_ai.usage.input_tokens");
  EXPECT_STREQ(attr::kGenAiToolCallId, "gen_ai.tool.call.id");
  EXPECT_EQ(attr::chat_span_name("llama3.2"), "chat llama3.2");
  EXPECT_EQ(attr::execute_tool_span_name("ReadFile"), "execute_tool ReadFile");
  EXPECT_EQ(attr::invoke_agent_span_name("Researcher"), "invoke_agent Researcher");
  EXPECT_EQ(attr::chat_span_name(""), "chat");
}

}  // namespace
}  // namespace kaisha::telemetry
