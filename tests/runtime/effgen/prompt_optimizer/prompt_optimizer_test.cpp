#include <gtest/gtest.h>

#include "runtime/effgen/prompt_optimizer/prompt_optimizer.hpp"
#include "runtime/effgen/prompt_optimizer/prompt_stages.hpp"
#include "tests/runtime/effgen/prompt_optimizer/prompt_test_support.hpp"

namespace kaisha::prompt {
namespace {

using testing::shipped_patterns;

const char* kD5Before =
    "You are a research assistant. Your task is to search for relevant information on the given topic using web "
    "search tools. After gathering information, analyze the key findings and identify common themes. Then "
    "synthesize the information into a coherent summary. Make sure to cite sources and provide specific examples "
    "where appropriate.";

PromptOptimizer optimizer(OptimizerOptions o = {}) { return PromptOptimizer(shipped_patterns(), o); }

std::string sentences(const std::string& stem, int n) {
  std::string t;
  for (int i = 0; i < n; ++i) t += stem + " " + std::to_string(i) + " has a few more words in it. ";
  return t;
}

TEST(PromptOptimizer, LoadsShippedPatternsFile) {
  auto o = PromptOptimizer::from_file(testing::patterns_path());
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->patterns().compression.size(), 30u);
  auto bad = PromptOptimizer::from_file("/nonexistent.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "config");
}

// Full pipeline on the D.5 example: politeness goes in τ3, four bullets in τ4.
TEST(PromptOptimizer, PaperExampleThroughWholePipeline) {
  auto r = optimizer().optimize(kD5Before, ModelTier::tiny);
  EXPECT_EQ(r.text,
            "You are a research assistant. Your task:\n"
            "- Search for relevant information on the given topic using web search tools\n"
            "- Analyze the key findings and identify common themes\n"
            "- Synthesize the information into a coherent summary\n"
            "- Cite sources and provide specific examples where appropriate");
  EXPECT_EQ(r.report.counts.bullets, 4);
  EXPECT_EQ(r.report.counts.politeness_removed, 1);
  EXPECT_LT(r.report.compression_ratio, 1.0);
  EXPECT_DOUBLE_EQ(r.report.original_tokens, estimate_tokens(kD5Before));
  EXPECT_DOUBLE_EQ(r.report.optimized_tokens, estimate_tokens(r.text));
}

TEST(PromptOptimizer, GoldenCompressionThroughOptimizer) {
  OptimizerOptions only_compression = OptimizerOptions::all_disabled();
  only_compression.enable_compression = true;
  auto r = optimizer(only_compression)
               .optimize("We must act in order to win due to the fact that it is able to help.", ModelTier::small);
  EXPECT_EQ(r.text, "We must act to win because it can help.");
  EXPECT_EQ(r.report.counts.replacements, 3);
}

// effgen.md §23 B.12: every stage off is the identity.
TEST(PromptOptimizer, AllStagesDisabledIsIdentity) {
  auto o = optimizer(OptimizerOptions::all_disabled());
  std::string text = std::string(kD5Before) + " " + sentences("Please note that item", 300);
  auto r = o.optimize(text, ModelTier::tiny);
  EXPECT_EQ(r.text, text);
  EXPECT_DOUBLE_EQ(r.report.compression_ratio, 1.0);
  EXPECT_EQ(r.report.to_json()["counts"]["replacements"], 0);

  PromptParts parts{kD5Before, "Please do it in order to win.", {"search: find things. Long."}, {"ex"}, {"old"}};
  auto pr = o.optimize(parts, ModelTier::tiny);
  EXPECT_EQ(pr.parts.render(), parts.render());
  EXPECT_DOUBLE_EQ(pr.report.compression_ratio, 1.0);
}

TEST(PromptOptimizer, TierDefaultsAndOverrides) {
  auto o = optimizer();
  StageFlags xl = o.stages_for(ModelTier::xl);
  EXPECT_FALSE(xl.compression);
  EXPECT_FALSE(xl.simplification);
  EXPECT_TRUE(xl.redundancy);
  EXPECT_FALSE(xl.bullets);
  EXPECT_TRUE(xl.truncation);
  StageFlags large = o.stages_for(ModelTier::large);
  EXPECT_TRUE(large.compression);
  EXPECT_FALSE(large.simplification);
  EXPECT_FALSE(large.bullets);
  OptimizerOptions opt;
  opt.enable_bullets = true;
  opt.enable_redundancy = false;
  opt.max_prompt_tokens = 100;
  auto o2 = optimizer(opt);
  EXPECT_TRUE(o2.stages_for(ModelTier::xl).bullets);
  EXPECT_FALSE(o2.stages_for(ModelTier::tiny).redundancy);
  EXPECT_EQ(o2.max_prompt_tokens(ModelTier::xl), 100);
  EXPECT_EQ(o.max_prompt_tokens(ModelTier::medium), 2048);
}

// effgen.md §23 B.10 with structured parts: ≤ 460 at τ_prompt 512, system
// prompt and task intact, examples go before history.
TEST(PromptOptimizer, StructuredTruncationKeepsSystemAndTask) {
  PromptParts parts;
  parts.system = "You are a careful analyst.";
  parts.task = "Summarize the quarterly report.";
  parts.tools = {"search: Searches the web for pages. Returns titles, snippets and links for each hit found."};
  for (int i = 0; i < 10; ++i) parts.examples.push_back(sentences("Example", 6));
  for (int i = 0; i < 10; ++i)
    parts.history.push_back("user: message " + std::to_string(i) + " " + sentences("History", 8));
  auto r = optimizer().optimize(parts, ModelTier::tiny);
  EXPECT_LE(estimate_tokens(r.parts.render()), 460.0);
  EXPECT_LE(r.report.optimized_tokens, 460.0);
  EXPECT_EQ(r.parts.system, parts.system);
  EXPECT_EQ(r.parts.task, parts.task);
  EXPECT_TRUE(r.report.counts.truncated);
  EXPECT_FALSE(r.report.counts.over_budget);
  EXPECT_EQ(r.report.counts.examples_dropped, 10);
  EXPECT_GT(r.report.counts.history_dropped, 0);
  // Oldest history went first: what is left is the newest tail.
  ASSERT_FALSE(r.parts.history.empty());
  EXPECT_EQ(r.parts.history.back(), parts.history.back());
  EXPECT_EQ(static_cast<int>(r.parts.history.size()) + r.report.counts.history_dropped, 10);
}

TEST(PromptOptimizer, ExamplesTrimmedBeforeHistory) {
  PromptParts parts;
  parts.system = "You are terse.";
  parts.task = "Answer.";
  for (int i = 0; i < 6; ++i) parts.examples.push_back(sentences("Example", 8));
  parts.history = {"user: hi", "assistant: hello"};
  auto r = optimizer().optimize(parts, ModelTier::tiny);
  EXPECT_GT(r.report.counts.examples_dropped, 0);
  EXPECT_LT(r.report.counts.examples_dropped, 6);
  EXPECT_EQ(r.parts.examples.front(), parts.examples.front());  // the first examples stay
  EXPECT_EQ(r.report.counts.history_dropped, 0);
  EXPECT_LE(estimate_tokens(r.parts.render()), 460.0);
}

TEST(PromptOptimizer, OverBudgetWhenSystemAndTaskAloneAreTooLong) {
  PromptParts parts;
  parts.system = sentences("System rule", 100);
  parts.task = "Do it.";
  auto r = optimizer().optimize(parts, ModelTier::tiny);
  EXPECT_TRUE(r.report.counts.over_budget);
  EXPECT_EQ(r.parts.task, "Do it.");
}

TEST(PromptOptimizer, ReportJson) {
  auto r = optimizer().optimize("We must act in order to win.", ModelTier::small);
  json j = r.report.to_json();
  EXPECT_EQ(j["tier"], "small");
  EXPECT_EQ(j["max_prompt_tokens"], 1024);
  EXPECT_DOUBLE_EQ(j["target_compression_ratio"].get<double>(), 0.7);
  EXPECT_EQ(j["stages"]["bullets"], true);
  EXPECT_EQ(j["counts"]["replacements"], 1);
  EXPECT_DOUBLE_EQ(j["prompt_tokens_original"].get<double>(), estimate_tokens("We must act in order to win."));
  EXPECT_DOUBLE_EQ(j["prompt_tokens_optimized"].get<double>(), estimate_tokens("We must act to win."));
  EXPECT_DOUBLE_EQ(j["compression_ratio"].get<double>(),
                   estimate_tokens("We must act to win.") / estimate_tokens("We must act in order to win."));
}

TEST(PromptOptimizer, LiteralSumModeDoublesEstimates) {
  OptimizerOptions o = OptimizerOptions::all_disabled();
  o.estimate_mode = TokenEstimateMode::literal_sum;
  auto r = optimizer(o).optimize("hello world", ModelTier::tiny);
  EXPECT_DOUBLE_EQ(r.report.original_tokens, 5.35);
}

llm::ChatMessage msg(llm::Role role, std::string content) {
  llm::ChatMessage m;
  m.role = role;
  m.content = std::move(content);
  return m;
}

TEST(PromptOptimizer, ChatRequestRewritesSystemAndTaskOnly) {
  llm::ChatRequest req;
  req.model = "qwen2.5:0.5b";
  req.messages = {msg(llm::Role::system, "Kindly answer in order to help."),
                  msg(llm::Role::user, "Please explain it in order to learn."),
                  msg(llm::Role::assistant, "Kindly wait, in order to think."),
                  msg(llm::Role::user, "Please summarize this in order to save time.")};
  auto r = optimizer().optimize(req, ModelTier::tiny);
  ASSERT_EQ(r.request.messages.size(), 4u);
  EXPECT_EQ(r.request.messages[0].content, "Answer to help.");
  EXPECT_EQ(r.request.messages[1].content, req.messages[1].content);  // history: untouched
  EXPECT_EQ(r.request.messages[2].content, req.messages[2].content);
  EXPECT_EQ(r.request.messages[3].content, "Please summarize this to save time.");  // "Please" kept
  EXPECT_EQ(r.request.model, req.model);
}

TEST(PromptOptimizer, ChatRequestDropsWholeExchangesOldestFirst) {
  llm::ChatRequest req;
  req.messages.push_back(msg(llm::Role::system, "You are a helper."));
  for (int i = 0; i < 12; ++i) {
    req.messages.push_back(msg(llm::Role::user, sentences("Question", 4)));
    llm::ChatMessage call = msg(llm::Role::assistant, "");
    call.tool_calls = {{"c" + std::to_string(i), "search", R"({"q":"x"})"}};
    req.messages.push_back(call);
    llm::ChatMessage result = msg(llm::Role::tool, sentences("Result", 4));
    result.tool_call_id = "c" + std::to_string(i);
    req.messages.push_back(result);
    req.messages.push_back(msg(llm::Role::assistant, "Done " + std::to_string(i) + "."));
  }
  req.messages.push_back(msg(llm::Role::user, "Now compare all results."));
  llm::ChatMessage call = msg(llm::Role::assistant, "");
  call.tool_calls = {{"cur", "search", "{}"}};
  req.messages.push_back(call);
  llm::ChatMessage cur = msg(llm::Role::tool, "current result");
  cur.tool_call_id = "cur";
  req.messages.push_back(cur);
  llm::ToolSpec tool{"search", "Searches the web. Returns titles and snippets for every result it finds.",
                     json::object()};
  req.tools = {tool};

  auto r = optimizer().optimize(req, ModelTier::tiny);
  const auto& m = r.request.messages;
  EXPECT_GT(r.report.counts.history_dropped, 0);
  EXPECT_LE(r.report.optimized_tokens, 460.0);
  EXPECT_EQ(m.front().role, llm::Role::system);
  EXPECT_EQ(m.front().content, "You are a helper.");
  // The task and the current turn are kept as they were.
  ASSERT_GE(m.size(), 4u);
  EXPECT_EQ(m[m.size() - 3].content, "Now compare all results.");
  EXPECT_EQ(m.back().tool_call_id, "cur");
  // No tool result outlives its call.
  for (size_t i = 1; i < m.size(); ++i) {
    if (m[i].role != llm::Role::tool) continue;
    EXPECT_TRUE(m[i - 1].role == llm::Role::tool || !m[i - 1].tool_calls.empty()) << i;
  }
  // The newest history survived.
  EXPECT_EQ(m[m.size() - 4].content, "Done 11.");
}

TEST(PromptOptimizer, ChatRequestAllDisabledIsIdentity) {
  llm::ChatRequest req;
  req.messages = {msg(llm::Role::system, "Kindly help."), msg(llm::Role::user, sentences("Q", 200))};
  auto r = optimizer(OptimizerOptions::all_disabled()).optimize(req, ModelTier::tiny);
  ASSERT_EQ(r.request.messages.size(), 2u);
  EXPECT_EQ(r.request.messages[0].content, "Kindly help.");
  EXPECT_EQ(r.request.messages[1].content, req.messages[1].content);
  EXPECT_DOUBLE_EQ(r.report.compression_ratio, 1.0);
}

}  // namespace
}  // namespace kaisha::prompt

namespace kaisha::prompt {
namespace {

TEST(PromptOptimizer, FencedCodeIsNotRewritten) {
  std::string text =
      "Reply in order to help. Reply in order to help.\n```json\n{\"a\": \"in order to\"}\n}\n}\n```\n"
      "Kindly stop.";
  auto segs = split_code_fences(text);
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_TRUE(segs[1].code);
  OptimizerOptions o;
  o.enable_bullets = false;
  auto r = PromptOptimizer(testing::shipped_patterns(), o).optimize(text, ModelTier::tiny);
  EXPECT_EQ(r.text, "Reply to help.\n```json\n{\"a\": \"in order to\"}\n}\n}\n```\nStop.");
}

TEST(Redundancy, MarkupLinesAreNotDuplicates) {
  std::string t = "<rules>\nBe brief.\n</rules>\n<style>\nBe brief.\n</style>";
  auto c = remove_redundancy(t, testing::shipped_patterns(), false);
  EXPECT_EQ(c.duplicates_removed, 1);
  EXPECT_EQ(t, "<rules>\nBe brief.\n</rules>\n<style>\n</style>");
}

}  // namespace
}  // namespace kaisha::prompt
