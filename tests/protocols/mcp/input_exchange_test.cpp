// The multi round-trip pattern's server side: asking, answering, and the
// sealed requestState.
#include "protocols/mcp/server/input_exchange.hpp"

#include <gtest/gtest.h>

namespace kaisha::mcp {
namespace {

const json kAsk{{"name", {{"method", "elicitation/create"}, {"params", {{"message", "Name?"}}}}}};

TEST(InputExchange, AMissingAnswerBecomesAnInputRequiredResult) {
  auto x = InputExchange::from_params(json::object());
  ASSERT_TRUE(x.ok());
  auto r = x->ask(kAsk, json{{"round", 0}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, kInputRequired);
  EXPECT_TRUE(ends_the_call(r.error()));
  json result = x->input_required_result();
  EXPECT_EQ(result["resultType"], "input_required");
  EXPECT_EQ(result["inputRequests"], kAsk);
  ASSERT_TRUE(result["requestState"].is_string());
  EXPECT_EQ(open_state(result["requestState"].get<std::string>()), json({{"round", 0}}));
}

TEST(InputExchange, TheRetryBringsTheAnswersAndTheState) {
  const std::string state = seal_state(json{{"round", 3}});
  json answer{{"action", "accept"}, {"content", {{"name", "Alice"}}}};
  auto x = InputExchange::from_params(
      json{{"inputResponses", {{"name", answer}, {"extra", {{"ignored", true}}}}}, {"requestState", state}});
  ASSERT_TRUE(x.ok()) << x.error().message;
  EXPECT_EQ(x->state(), json({{"round", 3}}));
  auto r = x->ask(kAsk, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, json({{"name", answer}}));  // only what was asked
  EXPECT_FALSE(x->input_required());
}

TEST(InputExchange, AnAlteredOrForeignStateIsRefused) {
  const std::string state = seal_state(json{{"round", 1}});
  for (const std::string& bad : {state + "-TAMPERED", "x" + state, std::string("e30=.00"), std::string("no-dot")}) {
    auto x = InputExchange::from_params(json{{"requestState", bad}});
    ASSERT_FALSE(x.ok()) << bad;
    EXPECT_EQ(x.error().code, "invalid_params");
    EXPECT_NE(x.error().message.find("integrity check"), std::string::npos);
  }
}

TEST(InputExchange, MalformedInputResponsesSayWhatAndWhere) {
  auto null = InputExchange::from_params(json{{"inputResponses", nullptr}});
  ASSERT_FALSE(null.ok());
  EXPECT_NE(null.error().message.find("params.inputResponses must be an object"), std::string::npos);
  auto number = InputExchange::from_params(json{{"inputResponses", {{"name", 12345}}}});
  ASSERT_FALSE(number.ok());
  EXPECT_NE(number.error().message.find("params.inputResponses['name']"), std::string::npos) << number.error().message;
  auto state = InputExchange::from_params(json{{"requestState", 7}});
  ASSERT_FALSE(state.ok());
  EXPECT_NE(state.error().message.find("params.requestState"), std::string::npos);
}

TEST(InputExchange, CapabilitiesOfInputRequests) {
  EXPECT_EQ(capability_for("sampling/createMessage"), "sampling");
  EXPECT_EQ(capability_for("elicitation/create"), "elicitation");
  EXPECT_EQ(capability_for("roots/list"), "roots");
  EXPECT_EQ(capability_for("tools/list"), "");
}

}  // namespace
}  // namespace kaisha::mcp
