#include "runtime/hiva/replies/agent_feedback.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace agent_feedback_test {

void expect_fields(const Parsed<AgentFeedback>& p, const std::string& system, const std::string& tool,
                   const std::string& overall, const std::string& reply) {
  EXPECT_EQ(p.value.system_prompt, system) << reply;
  EXPECT_EQ(p.value.tool, tool) << reply;
  EXPECT_EQ(p.value.overall, overall) << reply;
}

// Fig. 8's example, on one line as the figure prints it and in the shapes
// models write it.
TEST(AgentFeedback, ReadsTheFigureExampleInEveryShape) {
  for (const std::string reply : {
           "SYSTEM_PROMPT_FEEDBACK: Define entity types. TOOL_FEEDBACK: Enhance entity extraction tool. "
           "OVERALL_FEEDBACK: Improve context transfer.",
           "1. SYSTEM_PROMPT_FEEDBACK: Define entity types.\n2. TOOL_FEEDBACK: Enhance entity extraction tool.\n3. "
           "OVERALL_FEEDBACK: Improve context transfer.\n",
           "Here is my analysis:\r\n\r\n- **SYSTEM_PROMPT_FEEDBACK:** Define entity types.\r\n- **TOOL_FEEDBACK**: "
           "Enhance entity extraction tool.\r\n- **OVERALL_FEEDBACK:** Improve context transfer.",
           "### System Prompt Feedback\nDefine entity types.\n\n### Tool Feedback\nEnhance entity extraction "
           "tool.\n\n### Overall Feedback\nImprove context transfer.",
           "<FEEDBACK>system_prompt_feedback - Define entity types.\ntool_feedback - Enhance entity extraction "
           "tool.\noverall_feedback - Improve context transfer.</FEEDBACK>",
           "```json\n{\"SYSTEM_PROMPT_FEEDBACK\": \"Define entity types.\", \"TOOL_FEEDBACK\": \"Enhance entity "
           "extraction tool.\", \"OVERALL_FEEDBACK\": \"Improve context transfer.\"}\n```",
       }) {
    Parsed<AgentFeedback> p = parse_agent_feedback(reply);
    expect_fields(p, "Define entity types.", "Enhance entity extraction tool.", "Improve context transfer.", reply);
    EXPECT_EQ(p.problem, std::nullopt) << reply << "\n" << *p.problem;
    EXPECT_FALSE(p.defaulted);
  }
}

TEST(AgentFeedback, ValuesSpanLinesAndKeepJapaneseAndEmoji) {
  Parsed<AgentFeedback> p = parse_agent_feedback(
      "SYSTEM_PROMPT_FEEDBACK：固有名詞の種類を定義してください。\n出典も確認すること。\nTOOL_FEEDBACK: None\n"
      "OVERALL_FEEDBACK: 文脈の受け渡しを改善 🚀");
  expect_fields(p, "固有名詞の種類を定義してください。\n出典も確認すること。", "", "文脈の受け渡しを改善 🚀", "ja");
  EXPECT_EQ(p.problem, std::nullopt);
}

TEST(AgentFeedback, AMissingFieldIsEmptyAndNamed) {
  Parsed<AgentFeedback> p =
      parse_agent_feedback("SYSTEM_PROMPT_FEEDBACK: Define entity types.\nOVERALL_FEEDBACK: Improve context transfer.");
  expect_fields(p, "Define entity types.", "", "Improve context transfer.", "missing tool");
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(*p.problem, "agent feedback reply: no TOOL_FEEDBACK");
}

TEST(AgentFeedback, ATruncatedReplyKeepsWhatArrived) {
  Parsed<AgentFeedback> p = parse_agent_feedback("SYSTEM_PROMPT_FEEDBACK: Define entity types.\nTOOL_FEEDBACK: Enha");
  expect_fields(p, "Define entity types.", "Enha", "", "truncated");
  EXPECT_EQ(*p.problem, "agent feedback reply: no OVERALL_FEEDBACK");
}

TEST(AgentFeedback, ARepeatedFieldKeepsTheFirstValue) {
  Parsed<AgentFeedback> p = parse_agent_feedback(
      "TOOL_FEEDBACK: Parse dates.\nSYSTEM_PROMPT_FEEDBACK: Be brief.\nTOOL_FEEDBACK: Also parse times.\n"
      "OVERALL_FEEDBACK: Fine.");
  expect_fields(p, "Be brief.", "Parse dates.", "Fine.", "repeated");
  EXPECT_EQ(*p.problem, "agent feedback reply: TOOL_FEEDBACK appears 2 times; the first value is used");
}

TEST(AgentFeedback, AMentionInsideASentenceIsNotALabel) {
  Parsed<AgentFeedback> p = parse_agent_feedback(
      "SYSTEM_PROMPT_FEEDBACK: Mention the tool feedback you got.\nTOOL_FEEDBACK: x\nOVERALL_FEEDBACK: y");
  EXPECT_EQ(p.value.system_prompt, "Mention the tool feedback you got.");
}

TEST(AgentFeedback, UnlabelledReplyIsTheOverallFeedback) {
  Parsed<AgentFeedback> p = parse_agent_feedback("  The agent should cite its sources.  ");
  expect_fields(p, "", "", "The agent should cite its sources.", "prose");
  EXPECT_TRUE(p.defaulted);
  EXPECT_NE(p.problem->find("the whole reply is the overall feedback"), std::string::npos);
  Parsed<AgentFeedback> empty = parse_agent_feedback("");
  EXPECT_TRUE(empty.defaulted);
  EXPECT_EQ(*empty.problem, "agent feedback reply: the reply is empty");
}

}  // namespace agent_feedback_test
}  // namespace kaisha::hiva
