// A strategy's tool source behind the company's breakers: a tool failing in
// a row is refused without reaching the source once its breaker opens; after
// the cool-down a trial call runs and, succeeding, closes it; every change
// is told with the call's context; invalid input does not count.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/company/guarded_tool_source.hpp"
#include "runtime/company/tool_error_class.hpp"

namespace kaisha::company {
namespace {

// Answers each call with the next scripted result, at once.
class ScriptedSource : public ToolSource {
 public:
  std::string origin() const override { return "scripted"; }
  std::vector<llm::ToolSpec> specs() const override { return {{"fetch", "fetches", json{{"type", "object"}}}}; }
  void call(const std::string&, const json&, const ToolCallContext&, std::function<void(ToolResult)> done) override {
    ++calls;
    ToolResult r = results.empty() ? ToolResult::success("ok") : results.front();
    if (!results.empty()) results.erase(results.begin());
    done(std::move(r));
  }
  bool repeatable(const std::string&) const override { return true; }
  std::vector<ToolResult> results;
  int calls = 0;
};

struct Told {
  std::string tool, from, to, agent;
};

class GuardedToolSourceTest : public ::testing::Test {
 protected:
  std::shared_ptr<GuardedToolSource> guard(int64_t cooldown_ms) {
    ToolBreakerSettings b;
    b.failures_to_open = 2;
    b.cooldown_ms = cooldown_ms;
    health = std::make_shared<ToolHealth>(b);
    return std::make_shared<GuardedToolSource>(
        inner, health, [this](const std::string& tool, const BreakerChange& c, const ToolCallContext& ctx) {
          told.push_back(
              {tool, std::string(breaker_state_name(c.from)), std::string(breaker_state_name(c.to)), ctx.agent});
        });
  }
  ToolResult call(ToolSource& s) {
    ToolResult out = ToolResult::error("not answered");
    s.call("fetch", json::object(), ToolCallContext{"s1", "t1", "pyramid", "", ""}, [&](ToolResult r) { out = r; });
    return out;
  }

  std::shared_ptr<ScriptedSource> inner = std::make_shared<ScriptedSource>();
  std::shared_ptr<ToolHealth> health;
  std::vector<Told> told;
};

TEST_F(GuardedToolSourceTest, FailuresInARowOpenTheBreakerAndTheNextCallDoesNotReachTheSource) {
  auto s = guard(600000);
  EXPECT_EQ(s->origin(), "scripted");  // the rest is the wrapped source's
  EXPECT_TRUE(s->repeatable("fetch"));
  ASSERT_EQ(s->specs().size(), 1u);
  inner->results = {with_error_class(ToolResult::error("bad"), ToolErrorClass::invalid_input),
                    ToolResult::error("HTTP 503"), ToolResult::error("HTTP 503")};
  EXPECT_FALSE(call(*s).ok);  // invalid input: the caller's, not counted
  EXPECT_EQ(health->view("fetch").calls, 0);
  EXPECT_FALSE(call(*s).ok);
  EXPECT_TRUE(told.empty());
  EXPECT_FALSE(call(*s).ok);
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].to, "open");
  EXPECT_EQ(told[0].agent, "pyramid");  // the call's context
  const ToolResult refused = call(*s);
  EXPECT_EQ(inner->calls, 3);  // not run
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.output["breaker"], "open");
  EXPECT_NE(refused.message.find("circuit breaker open"), std::string::npos) << refused.message;
  EXPECT_EQ(classify_tool_error(refused), ToolErrorClass::permanent);  // not retried
}

TEST_F(GuardedToolSourceTest, AfterTheCoolDownATrialThatSucceedsClosesIt) {
  auto s = guard(0);  // the cool-down is over as soon as it opens
  inner->results = {ToolResult::error("HTTP 503"), ToolResult::error("HTTP 503"), ToolResult::success("ok")};
  call(*s);
  call(*s);
  EXPECT_TRUE(call(*s).ok);
  EXPECT_EQ(inner->calls, 3);
  ASSERT_EQ(told.size(), 3u);
  EXPECT_EQ(told[0].to, "open");
  EXPECT_EQ(told[1].from, "open");
  EXPECT_EQ(told[1].to, "half_open");
  EXPECT_EQ(told[2].from, "half_open");
  EXPECT_EQ(told[2].to, "closed");
  EXPECT_EQ(health->view("fetch").state, BreakerState::closed);
}

}  // namespace
}  // namespace kaisha::company
