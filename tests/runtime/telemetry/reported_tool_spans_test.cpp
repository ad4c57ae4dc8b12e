#include "runtime/telemetry/reported_tool_spans.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "runtime/telemetry/otlp_json.hpp"
#include "runtime/telemetry/span_exporter.hpp"
#include "runtime/telemetry/trace_context.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::telemetry {
namespace reported_tool_spans_test {

// Installs a tracer writing to a file of its own for one test, and reads
// back what it wrote.
class ReportedToolSpansTraced : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("kaisha-tool-spans-" + std::to_string(getpid()) + "-" +
                                                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove(path_);
    SpanExporterOptions o;
    o.file = path_.string();
    auto exporter = SpanExporter::start(o);
    ASSERT_TRUE(exporter.ok()) << exporter.error().message;
    install_tracer(std::make_unique<Tracer>(std::move(exporter).value(), false));
  }
  void TearDown() override {
    install_tracer(nullptr);
    std::filesystem::remove(path_);
  }
  std::vector<Span> spans() {
    flush_tracer();
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    auto batches = decode_otlp_jsonl(text.str());
    EXPECT_TRUE(batches.ok()) << (batches.ok() ? "" : batches.error().message);
    std::vector<Span> out;
    if (batches.ok())
      for (auto& b : *batches)
        for (auto& s : b.spans) out.push_back(s);
    return out;
  }
  const Span* named(const std::vector<Span>& all, const std::string& name) {
    for (const auto& s : all)
      if (s.name == name) return &s;
    return nullptr;
  }

  std::filesystem::path path_;
};

TEST_F(ReportedToolSpansTraced, AReportedCallIsOneSpanUnderTheTaskFromItsCallToItsResult) {
  ReportedToolSpans t;
  t.called(json{{"call_id", "c1"}, {"tool", "AgentCreator"}, {"arguments", "{}"}}, "Invoking `AgentCreator`", "t-1");
  t.called(json{{"call", 7}}, "AskAgent {\"agent_name\":\"Poet\"}", "t-1");  // the pyramid's shape
  EXPECT_EQ(t.open(), 2u);
  t.returned(json{{"call_id", "c1"}, {"tool", "AgentCreator"}, {"result", {{"status", "success"}}}});
  t.returned(json{{"call", 7}, {"result", {{"status", "error"}, {"message", "no such agent"}}}});
  EXPECT_EQ(t.open(), 0u);
  auto all = spans();
  const Span* hire = named(all, "execute_tool AgentCreator");
  const Span* ask = named(all, "execute_tool AskAgent");
  ASSERT_TRUE(hire && ask);
  EXPECT_EQ(hire->trace_id, task_trace("t-1").trace_id);
  EXPECT_EQ(hire->parent_span_id, task_trace("t-1").span_id);
  EXPECT_EQ(hire->status, SpanStatus::ok);
  EXPECT_EQ(ask->status, SpanStatus::error);
  EXPECT_EQ(ask->status_message, "no such agent");
  ASSERT_TRUE(ask->find("gen_ai.tool.call.id"));
  EXPECT_EQ(std::get<std::string>(*ask->find("gen_ai.tool.call.id")), "7");
}

TEST_F(ReportedToolSpansTraced, ARunToolClaimsTheSpanItsCallOpenedOnceAndOnlyInItsTask) {
  ReportedToolSpans t;
  t.called(json{{"call_id", "a"}, {"tool", "web_search"}}, "", "t-1");
  t.called(json{{"call_id", "b"}, {"tool", "web_search"}}, "", "t-1");
  EXPECT_EQ(t.claim("web_search", "t-2"), "");  // another task's
  const std::string first = t.claim("web_search", "t-1");
  const std::string second = t.claim("web_search", "t-1");
  EXPECT_FALSE(first.empty());
  EXPECT_FALSE(second.empty());
  EXPECT_NE(first, second);
  EXPECT_EQ(t.claim("web_search", "t-1"), "");  // both taken
  t.returned(json{{"call_id", "a"}});
  t.returned(json{{"call_id", "b"}});
  auto all = spans();
  ASSERT_EQ(all.size(), 2u);  // the claims started no span of their own
  for (const std::string& claimed : {first, second}) {
    auto parent = parse_traceparent(claimed);
    ASSERT_TRUE(parent);
    EXPECT_TRUE(all[0].span_id == parent->span_id || all[1].span_id == parent->span_id) << claimed;
  }
}

TEST_F(ReportedToolSpansTraced, SpansLeftOpenEndAsErrorsWhenTheTaskEndsOrAnotherBegins) {
  ReportedToolSpans t;
  t.called(json{{"call_id", "x"}, {"tool", "FireAgent"}}, "", "t-1");
  t.called(json{{"call_id", "y"}, {"tool", "GetBudget"}}, "", "t-2");  // t-1 ended without a word
  EXPECT_EQ(t.open(), 1u);
  t.end_all("the task ended before the tool answered");
  EXPECT_EQ(t.open(), 0u);
  auto all = spans();
  ASSERT_EQ(all.size(), 2u);
  for (const auto& s : all) {
    EXPECT_EQ(s.status, SpanStatus::error) << s.name;
    EXPECT_EQ(s.status_message, "the task ended before the tool answered");
  }
}

TEST_F(ReportedToolSpansTraced, ACallThatInvokesAnAgentIsThatAgentsSpanNotAToolSpan) {
  ReportedToolSpans t([](const std::string& tool) { return tool == "AskAgent"; });
  t.called(json{{"call_id", "c1"}, {"tool", "AskAgent"}}, "", "t-1");
  t.called(json{{"call_id", "c2"}, {"tool", "GetBudget"}}, "", "t-1");
  EXPECT_EQ(t.open(), 1u);
  t.returned(json{{"call_id", "c1"}});
  t.returned(json{{"call_id", "c2"}});
  auto all = spans();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].name, "execute_tool GetBudget");
}

TEST(ReportedToolSpans, NothingIsFollowedWhenTracingIsOff) {
  install_tracer(nullptr);
  ReportedToolSpans t;
  t.called(json{{"call_id", "c1"}, {"tool", "AgentCreator"}}, "", "t-1");
  EXPECT_EQ(t.open(), 0u);
  EXPECT_EQ(t.claim("AgentCreator", "t-1"), "");
}

}  // namespace reported_tool_spans_test
}  // namespace kaisha::telemetry
