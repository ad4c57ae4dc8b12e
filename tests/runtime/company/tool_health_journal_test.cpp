// A session's tools' health read back from journal steps: calls, failures,
// failures in a row, latency from the call to its result, refusals by an
// open breaker counted apart, invalid input and management tools left out,
// and the breaker as its last journaled change left it.
#include <gtest/gtest.h>

#include "runtime/company/tool_health_journal.hpp"

namespace kaisha::company {
namespace {

JournaledStep call(const std::string& agent, const std::string& tool, const std::string& id, int64_t at,
                   json metadata = nullptr) {
  json p{{"tool", tool}, {"arguments", "{}"}, {"call_id", id}};
  if (!metadata.is_null()) p["metadata"] = std::move(metadata);
  return {agent, "tool_call", std::move(p), at};
}

JournaledStep result(const std::string& agent, const std::string& tool, const std::string& id, int64_t at,
                     const ToolResult& r) {
  return {agent, "tool_result", json{{"tool", tool}, {"result", r.to_json()}, {"call_id", id}}, at};
}

JournaledStep note(const std::string& tool, BreakerState from, BreakerState to, int64_t at, int failures = 0,
                   int64_t cooldown = 0) {
  return {"Worker", "note", breaker_note(tool, BreakerChange{from, to, failures, cooldown}), at};
}

TEST(ToolHealthJournal, CountsCallsFailuresLatencyAndTheBreakersLastChange) {
  ToolHealthJournal j;
  // fetch: a success in 100 ms, then two failures (40 and 60 ms) that open its breaker, then a refusal.
  j.add(call("Worker", "fetch", "c1", 1000, json{{"timeout_ms", 1000}}));
  j.add(result("Worker", "fetch", "c1", 1100, ToolResult::success("ok")));
  j.add(call("Worker", "fetch", "c2", 2000));
  j.add(result("Worker", "fetch", "c2", 2040, ToolResult::error("HTTP 503")));
  j.add(call("CEO", "fetch", "c2", 2050));  // another agent's call with the same id
  j.add(result("CEO", "fetch", "c2", 2110, ToolResult::error("connection refused")));
  j.add(note("fetch", BreakerState::closed, BreakerState::open, 2111, 2, 60000));
  j.add(call("Worker", "fetch", "c3", 2200));
  j.add(result("Worker", "fetch", "c3", 2201,
               ToolResult::error("Tool `fetch` was not run: ...", json{{"breaker", "open"}, {"retry_in_ms", 59000}})));
  // add: one call with wrong arguments (not the tool's fault), one success.
  j.add(call("Worker", "add", "c4", 3000));
  j.add(result("Worker", "add", "c4", 3001,
               with_error_class(ToolResult::error("bad arguments"), ToolErrorClass::invalid_input)));
  j.add(call("Worker", "add", "c5", 3010));
  j.add(result("Worker", "add", "c5", 3012, ToolResult::success("5")));
  // The CEO's management tools have no health; other steps are not tools.
  j.add(call("CEO", "AskAgent", "c6", 4000));
  j.add(result("CEO", "AskAgent", "c6", 4100, ToolResult::error("no such agent")));
  j.add({"CEO", "llm_response", json{{"text", "hi"}}, 4200});

  const auto rows = j.rows();
  ASSERT_EQ(rows.size(), 2u);
  const ToolHealthRow& add = rows[0];
  EXPECT_EQ(add.tool, "add");
  EXPECT_EQ(add.view.calls, 1);
  EXPECT_EQ(add.view.failures, 0);
  EXPECT_DOUBLE_EQ(add.view.health, 1.0);
  EXPECT_EQ(add.view.state, BreakerState::closed);
  EXPECT_FALSE(add.breaker_changed_ms);

  const ToolHealthRow& fetch = rows[1];
  EXPECT_EQ(fetch.tool, "fetch");
  EXPECT_EQ(fetch.view.calls, 3);
  EXPECT_EQ(fetch.view.failures, 2);
  EXPECT_EQ(fetch.view.consecutive_failures, 2);
  EXPECT_EQ(fetch.refused, 1);
  EXPECT_DOUBLE_EQ(fetch.view.mean_latency_ms, (100.0 + 40 + 60) / 3);
  // ToolHealth's formula: a third succeeded, at a fifteenth of the timeout.
  EXPECT_NEAR(fetch.view.health, (1.0 / 3) * (1 - (200.0 / 3) / 1000), 1e-9);
  EXPECT_EQ(fetch.view.state, BreakerState::open);
  EXPECT_EQ(fetch.breaker_changed_ms, 2111);
  EXPECT_EQ(fetch.cooldown_ms, 60000);
  EXPECT_EQ(fetch.last_call_ms, 2110);
  const json row = fetch.to_json();
  EXPECT_EQ(row["tool"], "fetch");
  EXPECT_EQ(row["breaker"], "open");
  EXPECT_EQ(row["refused"], 1);
  EXPECT_EQ(row["cooldown_ms"], 60000);

  // A trial that succeeded closes it; a success resets the failures in a row.
  j.add(note("fetch", BreakerState::open, BreakerState::half_open, 70000));
  j.add(call("Worker", "fetch", "c7", 70001));
  j.add(result("Worker", "fetch", "c7", 70011, ToolResult::success("ok")));
  j.add(note("fetch", BreakerState::half_open, BreakerState::closed, 70012));
  const ToolHealthRow after = j.rows()[1];
  EXPECT_EQ(after.view.state, BreakerState::closed);
  EXPECT_EQ(after.view.consecutive_failures, 0);
  EXPECT_EQ(after.view.calls, 4);
  EXPECT_EQ(after.breaker_changed_ms, 70012);
  EXPECT_FALSE(after.to_json().contains("cooldown_ms"));
}

TEST(ToolHealthJournal, NotesThatAreNotABreakersAndMalformedStepsAreIgnored) {
  ToolHealthJournal j;
  j.add({"Worker", "note", json{{"tool_retry", "fetch"}, {"attempt", 2}}, 1});
  j.add({"Worker", "note", json{{"breaker", "fetch"}, {"to", "ajar"}}, 2});
  j.add({"Worker", "tool_result", json("not an object"), 3});
  j.add({"Worker", "tool_result", json{{"tool", "fetch"}, {"result", "plain text"}}, 4});
  const auto rows = j.rows();
  ASSERT_EQ(rows.size(), 1u);  // the plain-text result: a call of fetch with no status, a failure
  EXPECT_EQ(rows[0].view.calls, 1);
  EXPECT_EQ(rows[0].view.failures, 1);
  EXPECT_EQ(rows[0].view.state, BreakerState::closed);
}

}  // namespace
}  // namespace kaisha::company
