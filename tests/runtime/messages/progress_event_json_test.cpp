#include "runtime/messages/progress_event_json.hpp"

#include <gtest/gtest.h>

#include "runtime/core/json_text.hpp"

namespace kaisha::msg {
namespace {

TEST(ProgressEventJson, RoundTripsEveryField) {
  ProgressEvent e;
  e.kind = EventKind::answer;
  e.session_id = "s";
  e.task_id = "t";
  e.agent = "社員 🚀";
  e.text = "こんにちは";
  e.data = {{"budget", {{"current_expense", 0.5}}}};
  e.at_ms = 1700000000000;
  e.node = "n2";
  e.tokens_in = 12;
  e.tokens_out = 3;
  e.usd = 0.25;
  json j = progress_event_json(e);
  EXPECT_EQ(j["event"], "answer");
  auto back = progress_event_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kind, e.kind);
  EXPECT_EQ(back->agent, e.agent);
  EXPECT_EQ(back->text, e.text);
  EXPECT_EQ(back->data, e.data);
  EXPECT_EQ(back->node, "n2");
  EXPECT_EQ(back->tokens_in, 12);
  EXPECT_EQ(back->usd, 0.25);
  EXPECT_EQ(back->at_ms, e.at_ms);
  e.node.clear();
  EXPECT_FALSE(progress_event_json(e).contains("node"));
}

TEST(ProgressEventJson, TheLineIsTheTreesTextByteForByte) {
  ProgressEvent e;
  e.kind = EventKind::usage;
  e.agent = "CEO \"x\"";
  e.text = "bad \xff bytes\n日本語";
  e.data = {{"budget", {{"current_expense", 0.1}}}, {"list", {1, 2}}};
  e.usd = 0.30000000000000004;
  e.tokens_in = 7;
  EXPECT_EQ(progress_event_line(e), dump_text(progress_event_json(e)));
  e.node = "n1";
  e.usd = 0;
  e.data = json::object();
  EXPECT_EQ(progress_event_line(e), dump_text(progress_event_json(e)));
}

TEST(ProgressEventJson, BadLinesNameWhatIsWrong) {
  EXPECT_NE(progress_event_from_json(json::array()).error().message.find("JSON object"), std::string::npos);
  EXPECT_NE(progress_event_from_json(json{{"agent", "x"}}).error().message.find("'event'"), std::string::npos);
  EXPECT_NE(progress_event_from_json(json{{"event", "dance"}}).error().message.find("unknown event kind 'dance'"),
            std::string::npos);
  EXPECT_NE(progress_event_from_json(json{{"event", "ask"}, {"tokens_in", "many"}}).error().message.find("tokens_in"),
            std::string::npos);
  EXPECT_TRUE(progress_event_from_json(json{{"event", "ask"}, {"node", nullptr}}).ok());
}

}  // namespace
}  // namespace kaisha::msg
