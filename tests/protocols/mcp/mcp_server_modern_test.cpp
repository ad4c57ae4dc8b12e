// McpServer serving 2026-07-28 requests (handle_modern) over the
// conformance fixture, without a transport: what a modern client gets, and
// that a legacy session beside it keeps the legacy behaviour.
#include <future>
#include <mutex>

#include <gtest/gtest.h>

#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/server/mcp_server.hpp"
#include "protocols/mcp/server/subscriptions.hpp"

namespace kaisha::mcp {
namespace {

struct Modern {
  std::unique_ptr<ConformanceFixture> fx = std::move(ConformanceFixture::load().value());
  McpServer server{*fx};
  std::mutex mu;
  std::vector<json> related;

  // One modern request; the response (null for none).
  json call(const std::string& method, json params = json::object(), json caps = json::object(),
            std::optional<std::string> log_level = std::nullopt) {
    ModernRequest m;
    m.version = kModernVersion;
    m.client_capabilities = std::move(caps);
    if (log_level) m.min_log_rank = log_level_rank(*log_level);
    std::promise<std::optional<json>> p;
    auto f = p.get_future();
    McpStream stream{[this](const json& n) {
                       std::lock_guard lock(mu);
                       related.push_back(n);
                       return true;
                     },
                     nullptr, nullptr};
    server.handle_modern(jsonrpc::Request{method, std::move(params), json(7), false}, m, nullptr, stream,
                         [&p](std::optional<json> r) { p.set_value(std::move(r)); });
    auto r = f.get();
    return r ? *r : json(nullptr);
  }
};

TEST(McpServerModern, DiscoverNamesVersionsCapabilitiesAndTheServer) {
  Modern s;
  json r = s.call("server/discover")["result"];
  EXPECT_EQ(r["resultType"], "complete");
  EXPECT_EQ(r["supportedVersions"][0], kModernVersion);
  EXPECT_NE(std::find(r["supportedVersions"].begin(), r["supportedVersions"].end(), "2025-11-25"),
            r["supportedVersions"].end());
  EXPECT_TRUE(r["capabilities"]["tools"]["listChanged"].get<bool>());
  EXPECT_EQ(r["_meta"][meta_key::kServerInfo]["name"], "kaisha-conformance-fixture");
  EXPECT_EQ(r["ttlMs"], 0);
  EXPECT_EQ(r["cacheScope"], "private");
}

TEST(McpServerModern, ResultsCarryTheirTypeAndListsTheirCachingHints) {
  Modern s;
  json list = s.call("tools/list")["result"];
  EXPECT_EQ(list["resultType"], "complete");
  EXPECT_TRUE(list.contains("ttlMs") && list.contains("cacheScope"));
  json call = s.call("tools/call", {{"name", "test_simple_text"}})["result"];
  EXPECT_EQ(call["resultType"], "complete");
  EXPECT_FALSE(call.contains("ttlMs"));  // a tool's answer is not cacheable
  EXPECT_EQ(call["_meta"][meta_key::kServerInfo]["name"], "kaisha-conformance-fixture");
}

TEST(McpServerModern, RemovedAndUnknownMethodsAreNotFound) {
  Modern s;
  for (const char* m : {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}) {
    json e = s.call(m)["error"];
    EXPECT_EQ(e["code"], -32601) << m;
    EXPECT_NE(e["message"].get<std::string>().find("not part of MCP 2026-07-28"), std::string::npos) << e;
  }
  EXPECT_EQ(s.call("no/such")["error"]["code"], -32601);
}

TEST(McpServerModern, AnUnknownResourceIsInvalidParamsWithItsUri) {
  Modern s;
  json e = s.call("resources/read", {{"uri", "test://nope"}})["error"];
  EXPECT_EQ(e["code"], -32602);
  EXPECT_EQ(e["data"]["uri"], "test://nope");
}

TEST(McpServerModern, LogMessagesOnlyWhenTheRequestAskedForALevel) {
  Modern s;
  s.call("tools/call", {{"name", "test_logging_tool"}});
  EXPECT_TRUE(s.related.empty());
  s.call("tools/call", {{"name", "test_logging_tool"}}, json::object(), "info");
  ASSERT_EQ(s.related.size(), 1u);
  EXPECT_EQ(s.related[0]["method"], "notifications/message");
}

TEST(McpServerModern, AToolAsksInRoundsAndFinishesOnTheRetries) {
  Modern s;
  const json caps{{"elicitation", json::object()}};
  json r1 = s.call("tools/call", {{"name", "test_input_required_result_multi_round"}}, caps)["result"];
  ASSERT_EQ(r1["resultType"], "input_required") << r1;
  ASSERT_TRUE(r1["inputRequests"].contains("step1"));
  json r2 = s.call("tools/call",
                   {{"name", "test_input_required_result_multi_round"},
                    {"inputResponses", {{"step1", {{"action", "accept"}, {"content", {{"name", "Alice"}}}}}}},
                    {"requestState", r1["requestState"]}},
                   caps)["result"];
  ASSERT_EQ(r2["resultType"], "input_required") << r2;
  ASSERT_TRUE(r2["inputRequests"].contains("step2"));
  EXPECT_NE(r2["requestState"], r1["requestState"]);
  json r3 = s.call("tools/call",
                   {{"name", "test_input_required_result_multi_round"},
                    {"inputResponses", {{"step2", {{"action", "accept"}, {"content", {{"color", "blue"}}}}}}},
                    {"requestState", r2["requestState"]}},
                   caps)["result"];
  EXPECT_EQ(r3["resultType"], "complete");
  EXPECT_EQ(r3["content"][0]["text"], "Multi-round complete for Alice who likes blue");
}

TEST(McpServerModern, ATamperedStateIsRefused) {
  Modern s;
  const json caps{{"elicitation", json::object()}};
  json r1 = s.call("tools/call", {{"name", "test_input_required_result_tampered_state"}}, caps)["result"];
  json e = s.call("tools/call",
                  {{"name", "test_input_required_result_tampered_state"},
                   {"inputResponses", {{"confirm", {{"action", "accept"}, {"content", {{"ok", true}}}}}}},
                   {"requestState", r1["requestState"].get<std::string>() + "x"}},
                  caps)["error"];
  EXPECT_EQ(e["code"], -32602);
}

TEST(McpServerModern, AnUndeclaredCapabilityIsMissingRequiredClientCapability) {
  Modern s;
  json e = s.call("tools/call", {{"name", "test_missing_capability"}})["error"];
  EXPECT_EQ(e["code"], kMissingRequiredClientCapability);
  EXPECT_EQ(e["data"]["requiredCapabilities"], json({{"sampling", json::object()}}));
  // An optional request is left out instead.
  json r = s.call("tools/call", {{"name", "test_input_required_result_capabilities"}},
                  json{{"sampling", json::object()}})["result"];
  ASSERT_EQ(r["resultType"], "input_required");
  EXPECT_TRUE(r["inputRequests"].contains("sample_input"));
  EXPECT_FALSE(r["inputRequests"].contains("elicit_input"));
}

TEST(McpServerModern, APromptAsksLikeATool) {
  Modern s;
  const json caps{{"elicitation", json::object()}};
  json r1 = s.call("prompts/get", {{"name", "test_input_required_result_prompt"}}, caps)["result"];
  ASSERT_EQ(r1["resultType"], "input_required");
  json r2 = s.call("prompts/get",
                   {{"name", "test_input_required_result_prompt"},
                    {"inputResponses", {{"user_context", {{"action", "accept"}, {"content", {{"context", "tests"}}}}}}},
                    {"requestState", r1["requestState"]}},
                   caps)["result"];
  EXPECT_EQ(r2["messages"][0]["content"]["text"], "Prompt with context: tests");
}

TEST(McpServerModern, SubscriptionsGetOnlyWhatTheyAskedFor) {
  Modern s;
  std::mutex mu;
  std::vector<json> tools_stream, prompts_stream;
  auto listen = [&](json filter, std::vector<json>& into, json id) {
    ModernRequest m;
    m.version = kModernVersion;
    McpStream stream{[&mu, &into](const json& n) {
                       std::lock_guard lock(mu);
                       into.push_back(n);
                       return true;
                     },
                     nullptr, nullptr};
    s.server.handle_modern(jsonrpc::Request{"subscriptions/listen", json{{"notifications", filter}}, id, false}, m,
                           nullptr, stream, [](std::optional<json>) {});
  };
  listen(json{{"toolsListChanged", true}}, tools_stream, json("t"));
  listen(json{{"promptsListChanged", true}}, prompts_stream, json("p"));
  s.call("tools/call", {{"name", "test_trigger_tool_change"}});
  std::lock_guard lock(mu);
  ASSERT_EQ(tools_stream.size(), 2u);
  EXPECT_EQ(tools_stream[0]["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(tools_stream[0]["params"]["notifications"], json({{"toolsListChanged", true}}));
  EXPECT_EQ(tools_stream[1]["method"], "notifications/tools/list_changed");
  EXPECT_EQ(tools_stream[1]["params"]["_meta"][meta_key::kSubscriptionId], "t");
  ASSERT_EQ(prompts_stream.size(), 1u);  // the acknowledgement only
  EXPECT_EQ(prompts_stream[0]["params"]["_meta"][meta_key::kSubscriptionId], "p");
}

TEST(McpServerModern, ABadSubscriptionFilterSaysWhatIsWrong) {
  Modern s;
  json e = s.call("subscriptions/listen", {{"notifications", {{"toolsListChanged", "yes"}}}})["error"];
  EXPECT_EQ(e["code"], -32602);
  EXPECT_NE(e["message"].get<std::string>().find("params.notifications.toolsListChanged"), std::string::npos);
  EXPECT_EQ(s.call("subscriptions/listen")["error"]["code"], -32602);
}

}  // namespace
}  // namespace kaisha::mcp

namespace kaisha::mcp {
namespace {

TEST(Subscriptions, AStreamThatWentAwayIsDropped) {
  Subscriptions subs;
  auto gone = std::make_shared<std::atomic<bool>>(false);
  int delivered = 0;
  auto send = [&](const json&) {
    ++delivered;
    return true;
  };
  subs.open(json(1), SubscriptionFilter::parse(json{{"notifications", {{"toolsListChanged", true}}}}).value(), send,
            gone, [](json) {});
  EXPECT_EQ(delivered, 1);  // the acknowledgement
  gone->store(true);
  subs.list_changed("notifications/tools/list_changed");
  EXPECT_EQ(delivered, 1);
  EXPECT_EQ(subs.size(), 0u);
}

TEST(Subscriptions, TheServerStoppingAnswersEverySubscription) {
  Subscriptions subs;
  std::vector<json> ends;
  subs.open(
      json("a"), SubscriptionFilter{}, [](const json&) { return true; }, nullptr,
      [&](json r) { ends.push_back(std::move(r)); });
  subs.end_all();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0]["_meta"][meta_key::kSubscriptionId], "a");
  EXPECT_EQ(ends[0]["resultType"], "complete");
}

}  // namespace
}  // namespace kaisha::mcp
