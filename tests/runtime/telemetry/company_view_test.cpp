#include "runtime/telemetry/company_view.hpp"

#include <gtest/gtest.h>

namespace kaisha::telemetry {
namespace {

msg::ProgressEvent ev(msg::EventKind kind, const std::string& agent, const std::string& text,
                      json data = json::object(), const std::string& task = "t1") {
  msg::ProgressEvent e;
  e.kind = kind;
  e.agent = agent;
  e.text = text;
  e.data = std::move(data);
  e.task_id = task;
  e.at_ms = 1'700'000'000'000;
  return e;
}

TEST(CompanyView, FoldsAgentsByNodeTasksLedgersAndRefusals) {
  CompanyView v;
  v.apply(ev(msg::EventKind::task, "CEO", "調べて 🚀"));
  v.apply(ev(msg::EventKind::hire, "CEO", "Researcher (gemini-2.0-flash, cloud)",
             {{"agent", "Researcher"},
              {"base_model", "gemini-2.0-flash"},
              {"budget",
               {{"current_expense", 0.5}, {"total_expense_budget", 10}, {"current_remaining_expense_budget", 9.5}}}}));
  v.apply(ev(msg::EventKind::placed, "CEO", "placed", {{"agent", "Researcher"}, {"node", "node-b"}}));
  v.apply(ev(msg::EventKind::ask, "CEO", "CEO -> Researcher: go", {{"agent", "Researcher"}}));
  EXPECT_EQ(v.agents().at("Researcher").state, "asked");
  auto answer = ev(msg::EventKind::answer, "Researcher", "Researcher: 結果", {{"agent", "Researcher"}});
  answer.tokens_in = 100;
  answer.tokens_out = 20;
  answer.usd = 0.01;
  v.apply(answer);
  v.apply(ev(msg::EventKind::refusal, "CEO", "expense budget exhausted", {{"agent", "Writer"}}));
  const AgentView& a = v.agents().at("Researcher");
  EXPECT_EQ(a.node, "node-b");
  EXPECT_EQ(a.model, "gemini-2.0-flash");
  EXPECT_EQ(a.state, "answered");
  EXPECT_EQ(a.asks, 1);
  EXPECT_EQ(a.tokens_in, 100);
  EXPECT_DOUBLE_EQ(a.usd, 0.01);
  ASSERT_EQ(v.refusals().size(), 1u);
  EXPECT_NE(v.refusals()[0].find("CEO: expense budget exhausted"), std::string::npos);
  ASSERT_EQ(v.tasks().size(), 1u);
  EXPECT_EQ(v.tasks()[0].state, "working");
  EXPECT_EQ(v.tasks()[0].input, "調べて 🚀");

  const std::string screen = v.render(200, 1'700'000'003'000);
  EXPECT_NE(screen.find("[node-b]"), std::string::npos) << screen;
  EXPECT_NE(screen.find("Researcher"), std::string::npos) << screen;
  EXPECT_NE(screen.find("$0.5000/$10.0000 ($9.5000 left)"), std::string::npos) << screen;
  EXPECT_NE(screen.find("running   t1"), std::string::npos) << screen;
  EXPECT_NE(screen.find("answer [Researcher] Researcher: 結果"), std::string::npos) << screen;
  EXPECT_NE(screen.find("3.0 s"), std::string::npos) << screen;

  auto done = ev(msg::EventKind::final, "CEO", "done", {{"wall_ms", 4000}});
  done.usd = 0.02;
  done.tokens_in = 150;
  v.apply(done);
  EXPECT_EQ(v.tasks()[0].state, "completed");
  EXPECT_DOUBLE_EQ(v.tasks()[0].usd, 0.02);
  EXPECT_EQ(v.render(200, 0).find("running"), std::string::npos);
  v.apply(ev(msg::EventKind::fire, "CEO", "Researcher", {{"agent", "Researcher"}}));
  EXPECT_EQ(v.agents().at("Researcher").state, "fired");
}

TEST(CompanyView, HostileEventsLeaveTheViewSoundAndLinesFitTheWidth) {
  CompanyView v;
  v.apply(ev(msg::EventKind::hire, "CEO", "x", {{"agent", 42}, {"budget", "lots"}}));
  v.apply(ev(msg::EventKind::ask, "CEO", "x", json::array({1, 2})));
  v.apply(ev(msg::EventKind::answer, "", "x", nullptr));
  v.apply(ev(msg::EventKind::task, "CEO", std::string(500, 'x') + "\nsecond line", json::object(), "t2"));
  EXPECT_TRUE(v.agents().empty());
  EXPECT_TRUE(v.budget().empty());
  const std::string screen = v.render(60, 0);
  size_t start = 0;
  while (start < screen.size()) {
    size_t nl = screen.find('\n', start);
    size_t code_points = 0;  // the test's lines are ASCII but for the ellipsis: one column each
    for (size_t i = start; i < nl; ++i) code_points += (static_cast<unsigned char>(screen[i]) & 0xC0) != 0x80;
    EXPECT_LE(code_points, 60u) << screen.substr(start, nl - start);
    start = nl + 1;
  }
  EXPECT_EQ(screen.find("second line\n"), std::string::npos);
  // Cut inside a multi-byte character never leaves half of it.
  v.apply(ev(msg::EventKind::task, "CEO", std::string(100, 'a') + "日本語🚀日本語", json::object(), "t3"));
  const std::string narrow = v.render(40, 0);
  EXPECT_FALSE(narrow.empty());
  for (size_t i = 0; i < narrow.size();) {
    unsigned char c = static_cast<unsigned char>(narrow[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    ASSERT_NE(len, 0u) << "invalid UTF-8 at " << i;
    i += len;
  }
}

}  // namespace
}  // namespace kaisha::telemetry
