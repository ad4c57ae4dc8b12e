#include "runtime/messages/event_kind.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "runtime/store/journal_rows.hpp"

namespace kaisha::msg {
namespace {

TEST(EventKind, TheTableListsEveryKindOnceInDeclarationOrder) {
  const auto& all = event_kinds();
  ASSERT_EQ(all.size(), static_cast<size_t>(EventKind::breaker) + 1);  // the last kind
  std::set<std::string_view> names;
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(all[i].kind), i) << all[i].name;
    EXPECT_TRUE(names.insert(all[i].name).second) << "duplicate name " << all[i].name;
    EXPECT_EQ(event_kind_name(all[i].kind), all[i].name);
    EXPECT_EQ(parse_event_kind(all[i].name), all[i].kind);
    EXPECT_EQ(event_kind_group(all[i].kind), all[i].group);
  }
}

TEST(EventKind, NamesOutsideTheVocabularyAreRefused) {
  EXPECT_EQ(parse_event_kind("dance"), std::nullopt);
  EXPECT_EQ(parse_event_kind(""), std::nullopt);
  EXPECT_EQ(parse_event_kind("Final"), std::nullopt);  // names are exact
  EXPECT_THROW((void)nlohmann::json("dance").get<EventKind>(), nlohmann::json::type_error);
  EXPECT_THROW((void)nlohmann::json(3).get<EventKind>(), nlohmann::json::type_error);
}

TEST(EventKind, TheJournaledKindsAreExactlyTheJournalsStepKinds) {
  std::set<std::string_view> journaled, steps(store::kStepKinds.begin(), store::kStepKinds.end());
  for (const auto& k : event_kinds())
    if (k.journaled) journaled.insert(k.name);
  EXPECT_EQ(journaled, steps);
}

TEST(EventKind, JsonAndStreamsHoldTheWireName) {
  EXPECT_EQ(nlohmann::json(EventKind::node_down), "node_down");
  EXPECT_EQ(nlohmann::json("tool_result").get<EventKind>(), EventKind::tool_result);
  std::ostringstream o;
  o << EventKind::llm_response;
  EXPECT_EQ(o.str(), "llm_response");
}

TEST(EventKind, TaskEndsOnFinalCanceledOrAnErrorWithTheTasksTotals) {
  EXPECT_TRUE(ends_task(EventKind::final, false));
  EXPECT_TRUE(ends_task(EventKind::canceled, false));
  EXPECT_TRUE(ends_task(EventKind::error, true));
  EXPECT_FALSE(ends_task(EventKind::error, false));  // an agent's error; the task goes on
  EXPECT_FALSE(ends_task(EventKind::answer, true));
}

TEST(ProgressEventCodec, EveryTypedFieldSurvivesTheWire) {
  ProgressEvent e;
  e.session_id = "s1";
  e.task_id = "t1";
  e.agent = "詩人🎋";
  e.kind = EventKind::answer;
  e.text = "答え";
  e.data = {{"latency_ms", 12}};
  e.at_ms = 1700000000000;
  e.node = "b";
  e.tokens_in = 120;
  e.tokens_out = 30;
  e.usd = 0.25;
  auto r = decode<ProgressEvent>(encode(e));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->kind, EventKind::answer);
  EXPECT_EQ(r->agent, e.agent);
  EXPECT_EQ(r->node, "b");
  EXPECT_EQ(r->tokens_in, 120);
  EXPECT_EQ(r->tokens_out, 30);
  EXPECT_DOUBLE_EQ(r->usd, 0.25);
  EXPECT_EQ(r->data, e.data);
}

// What a node of the previous version sent: the kind as text, no node,
// tokens or $. It still decodes; the new fields keep their defaults.
struct OlderProgressEvent {
  std::string session_id, task_id, agent, kind, text;
  nlohmann::json data = nlohmann::json::object();
  int64_t at_ms = 0;
  MSGPACK_DEFINE_MAP(session_id, task_id, agent, kind, text, data, at_ms)
};

TEST(ProgressEventCodec, AnOlderPeersEventDecodes) {
  OlderProgressEvent old{"s", "t", "CEO", "hire", "Poet", {{"agent", "Poet"}}, 5};
  msgpack::sbuffer buf;
  msgpack::pack(buf, old);
  auto r = decode<ProgressEvent>(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->kind, EventKind::hire);
  EXPECT_EQ(r->text, "Poet");
  EXPECT_EQ(r->node, "");
  EXPECT_EQ(r->tokens_in, 0);
}

TEST(ProgressEventCodec, AKindOutsideTheVocabularyIsAClearDecodeError) {
  OlderProgressEvent bad{"s", "t", "CEO", "dance", "", nlohmann::json::object(), 5};
  msgpack::sbuffer buf;
  msgpack::pack(buf, bad);
  auto r = decode<ProgressEvent>(std::string_view(buf.data(), buf.size()));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("progress_event"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kaisha::msg

namespace kaisha::msg {
namespace {

// docs/events.md is the reference users read: every kind has its row there.
TEST(EventKind, TheEventsReferenceListsEveryKind) {
  const std::string path = std::string(KAISHA_SOURCE_DIR) + "/docs/events.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::set<std::string> rows;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("| `", 0) == 0) rows.insert(line.substr(3, line.find('`', 3) - 3));
  for (const auto& k : event_kinds()) EXPECT_TRUE(rows.count(std::string(k.name))) << k.name << " is not in " << path;
}

}  // namespace
}  // namespace kaisha::msg
