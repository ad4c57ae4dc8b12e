#include "runtime/mockllm/mock_script.hpp"

#include <gtest/gtest.h>

#include "runtime/mockllm/mock_matcher.hpp"

namespace kaisha::mockllm {
namespace {

using llm::ChatRequest;
using llm::Role;

ChatRequest request(std::string model, std::vector<llm::ChatMessage> msgs, bool tools = false) {
  ChatRequest r;
  r.model = std::move(model);
  r.messages = std::move(msgs);
  if (tools) r.tools.push_back({"AskAgent", "", json::object()});
  return r;
}

MockScript parse_ok(const std::string& text) {
  auto s = parse_mock_script(text, "t.yaml");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : MockScript{};
}

TEST(MockScript, ParsesTheDocumentedFormat) {
  auto s = parse_mock_script(R"(
defaults: { latency_ms: 7 }
rules:
  - name: ceo-opens
    match:
      model: gemini-2.0-flash
      system: "re:You are the CEO"
      last_user: poem
      last_role: user
      turn: 0
      has_tools: true
    times: 1
    reply:
      text: "Hello {{last_user}}"
      tool_calls:
        - name: AgentCreator
          arguments: {agent_name: Poet, base_model: mistral, n: 2, ok: true}
        - name: Broken
          arguments: '{"agent_name": "X",'
      usage: {input_tokens: 120, output_tokens: 30}
      latency_ms: 500
  - match: { model: flaky }
    fault: { status: 429, retry_after: 1 }
default_reply: { text: fallback }
)",
                             "t.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->default_latency_ms, 7);
  ASSERT_EQ(s->rules.size(), 2u);
  const MockRule& r = s->rules[0];
  EXPECT_EQ(r.name, "ceo-opens");
  EXPECT_EQ(r.line, 4);
  EXPECT_EQ(r.times, 1);
  ASSERT_TRUE(r.reply);
  EXPECT_EQ(r.reply->latency_ms, 500);
  ASSERT_EQ(r.reply->tool_calls.size(), 2u);
  EXPECT_EQ(json::parse(r.reply->tool_calls[0].arguments),
            json::parse(R"({"agent_name":"Poet","base_model":"mistral","n":2,"ok":true})"));
  EXPECT_EQ(r.reply->tool_calls[1].arguments, R"({"agent_name": "X",)");
  EXPECT_TRUE(r.reply->tool_calls[1].verbatim);
  EXPECT_EQ(r.reply->usage->input_tokens, 120);
  ASSERT_TRUE(s->rules[1].fault);
  EXPECT_EQ(s->rules[1].fault->status, 429);
  EXPECT_EQ(s->rules[1].fault->retry_after, 1);
  EXPECT_EQ(s->rules[1].label(1), "rule #2");
  ASSERT_TRUE(s->default_reply);
  EXPECT_EQ(s->default_reply->text, "fallback");
}

void expect_error(const std::string& text, const std::string& where, const std::string& what) {
  auto s = parse_mock_script(text, "t.yaml");
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_EQ(s.error().code, "config");
  EXPECT_NE(s.error().message.find(where), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find(what), std::string::npos) << s.error().message;
}

TEST(MockScript, ReportsErrorsWithFileLineAndKey) {
  expect_error("rules:\n  - match: {model: x}\n    reply: {text: a}\n    tiems: 2\n",
               "t.yaml:4:", "unknown key 'tiems' in rule");
  expect_error("rules:\n  - match:\n      modle: x\n    reply: {text: a}\n", "t.yaml:3:", "'modle'");
  expect_error("rules:\n  - match: {turn: two}\n    reply: {text: a}\n", "t.yaml:2:", "'turn' must be a whole number");
  expect_error("rules:\n  - match: {model: x}\n", "t.yaml:2:", "needs a 'reply' or a 'fault'");
  expect_error("rules:\n  - match: {model: x}\n    reply: {text: a}\n    reply: {text: b}\n",
               "t.yaml:4:", "'rules[0].reply' is given twice (lines 3 and 4)");
  expect_error("rules:\n  - fault: {kind: explode}\n", "t.yaml:2:", "'kind' must be");
  expect_error("rules:\n  - match: {system: 're:(unclosed'}\n    reply: {text: a}\n", "t.yaml:2:", "bad regex");
  expect_error("rules: [\n  {reply: {text: a}\n", "t.yaml:", "");  // YAML syntax error
  expect_error("rulez: []\n", "t.yaml:1:", "unknown key 'rulez'");
}

TEST(MockScript, MissingFileIsAnError) {
  auto s = load_mock_script("/nonexistent/script.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent/script.yaml"), std::string::npos);
}

TEST(MockScript, ExampleScriptsLoad) {
  for (const char* f : {"/examples/mock/echo.yaml", "/examples/mock/faults.yaml"}) {
    auto s = load_mock_script(std::string(KAISHA_SOURCE_DIR) + f);
    EXPECT_TRUE(s.ok()) << f << ": " << (s.ok() ? "" : s.error().message);
  }
}

TEST(MockMatcher, FirstMatchingRuleWinsAndTimesRunOut) {
  MockMatcher m(parse_ok(R"(
rules:
  - name: once
    match: {last_user: hello}
    times: 1
    reply: {text: first}
  - name: always
    match: {last_user: hello}
    reply: {text: second}
)"));
  ChatRequest r = request("m", {{Role::user, "oh hello there", {}, "", ""}});
  auto ctx = MatchContext::of(r);
  EXPECT_EQ(m.pick(ctx).label, "once");
  EXPECT_EQ(m.pick(ctx).label, "always");
  EXPECT_EQ(m.pick(ctx).label, "always");
  m.reset();
  EXPECT_EQ(m.pick(ctx).label, "once");
  ChatRequest other = request("m", {{Role::user, "bye", {}, "", ""}});
  auto none = m.pick(MatchContext::of(other));
  EXPECT_EQ(none.reply, nullptr);
  EXPECT_EQ(none.fault, nullptr);
}

TEST(MockMatcher, ConditionsTurnRegexToolsAndRoles) {
  MockMatcher m(parse_ok(R"(
rules:
  - name: regex-model
    match: {model: "re:^gpt-4o", turn: 0}
    reply: {text: a}
  - name: after-tool
    match: {last_role: tool, last_tool_name: AskAgent, last_tool: remaining, turn: 1}
    reply: {text: b}
  - name: tools-any
    match: {has_tools: true, any: vegetarian, system: CEO}
    reply: {text: c}
default_reply: {text: d}
)"));
  auto label = [&](const ChatRequest& r) { return m.pick(MatchContext::of(r)).label; };
  EXPECT_EQ(label(request("gpt-4o-mini", {{Role::user, "x", {}, "", ""}})), "regex-model");
  EXPECT_EQ(label(request("my-gpt-4o", {{Role::user, "x", {}, "", ""}})), "default_reply");
  llm::ChatMessage call{Role::assistant, "", {{"c1", "AskAgent", "{}"}}, "", ""};
  // The tool name is found through the call id when the tool message has none.
  llm::ChatMessage result{Role::tool, "3 remaining", {}, "c1", ""};
  EXPECT_EQ(label(request("m", {{Role::user, "q", {}, "", ""}, call, result})), "after-tool");
  EXPECT_EQ(
      label(request("m", {{Role::system, "You are the CEO", {}, "", ""}, {Role::user, "a vegetarian menu", {}, "", ""}},
                    true)),
      "tools-any");
  EXPECT_EQ(
      label(request("m", {{Role::system, "You are the CEO", {}, "", ""}, {Role::user, "a vegetarian menu", {}, "", ""}},
                    false)),
      "default_reply");
}

TEST(MockMatcher, BuildsResponsesWithTemplatesAndUsage) {
  auto s = parse_ok(R"Y(
rules:
  - reply:
      text: "Hi {{last_user}} from {{model}} ({{unknown}})"
      tool_calls: [{name: AskAgent, arguments: {question: "{{last_user}}"}}]
)Y");
  ChatRequest r = request("m1", {{Role::user, "say \"x\"", {}, "", ""}});
  auto ctx = MatchContext::of(r);
  auto resp = build_response(*s.rules[0].reply, ctx);
  EXPECT_EQ(resp.message.content, "Hi say \"x\" from m1 ({{unknown}})");
  ASSERT_EQ(resp.message.tool_calls.size(), 1u);
  EXPECT_EQ(json::parse(resp.message.tool_calls[0].arguments)["question"], "say \"x\"");
  EXPECT_FALSE(resp.message.tool_calls[0].id.empty());
  EXPECT_EQ(resp.finish_reason, "tool_calls");
  EXPECT_FALSE(resp.usage.estimated);
  EXPECT_GE(resp.usage.input_tokens, 1);
  EXPECT_GE(resp.usage.output_tokens, 1);
  MockReply omit;
  omit.text = "x";
  omit.omit_usage = true;
  EXPECT_TRUE(build_response(omit, ctx).usage.estimated);
}

// {{bytes:...}} survives the JSON encoding and becomes raw bytes after it.
TEST(MockTemplates, BytesMarkerBecomesRawBytesInTheBody) {
  EXPECT_EQ(insert_raw_bytes(R"({"text":"a{{bytes:E6 97 ff}}b{{bytes:C0}}"})"),
            "{\"text\":\"a\xE6\x97\xFF"
            "b\xC0\"}");
  EXPECT_EQ(insert_raw_bytes("no marker {{last_user}}"), "no marker {{last_user}}");
}

}  // namespace
}  // namespace kaisha::mockllm
