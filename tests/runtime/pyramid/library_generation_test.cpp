// LibraryGeneration: a model's library checked with the loader's rules, sent
// back with the loader's error, and given up after the bound.
#include "runtime/pyramid/library_generation.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/pyramid/agent_library.hpp"

namespace kaisha::pyramid {
namespace {

constexpr const char* kValid = R"(agents:
  - name: 翻訳_writer
    level: 1
    description: 文書を翻訳する 🌸
    responsibility: You translate for task {task_id}.
    workflow: Write the translation, then call final_output.
    available_tools: [file_write, final_output]
  - name: lead_agent
    level: 2
    description: Plans the work.
    responsibility: You lead task {task_id}.
    workflow: Ask the writer, then call final_output.
    available_tools: [writer_agent, final_output]
)";

std::string fixed(std::string yaml) {
  const std::string from = "[writer_agent, final_output]";
  return yaml.replace(yaml.find(from), from.size(), "[translation_writer, final_output]");
}

std::string valid_yaml() {
  std::string y = kValid;
  y.replace(y.find("翻訳_writer"), std::string("翻訳_writer").size(), "translation_writer");
  return fixed(y);
}

TEST(LibraryGeneration, TheYamlOfAnAnswerIsItsFencedBlockOrTheWholeText) {
  EXPECT_EQ(answer_yaml("Here it is:\n```yaml\nagents: []\n```\nEnjoy."), "agents: []");
  EXPECT_EQ(answer_yaml("```\nmax_children: 3\n```"), "max_children: 3");
  EXPECT_EQ(answer_yaml("  agents: []  \n"), "agents: []");
  EXPECT_EQ(answer_yaml("```yaml\nagents: []"), "agents: []") << "an unclosed block runs to the end";
  EXPECT_EQ(answer_yaml(""), "");
}

TEST(LibraryGeneration, AValidAnswerEndsItAndPassesTheLoader) {
  auto g = LibraryGeneration::create("translation of legal documents, 日本語と英語", "lib.yaml", 3);
  ASSERT_TRUE(g.ok()) << g.error().message;
  llm::ChatRequest first = g->first_request();
  ASSERT_EQ(first.messages.size(), 2u);
  EXPECT_EQ(first.messages[0].role, llm::Role::system);
  EXPECT_NE(first.messages[0].content.find("file_write"), std::string::npos) << "the level-0 tools are listed";
  EXPECT_EQ(first.messages[0].content.find("{{"), std::string::npos) << "every placeholder filled";
  EXPECT_NE(first.messages[1].content.find("日本語と英語"), std::string::npos);
  auto step = g->on_answer("```yaml\n" + valid_yaml() + "```");
  ASSERT_EQ(step.kind, LibraryGeneration::Step::Kind::done) << step.error;
  auto lib = AgentLibrary::parse(step.yaml, "lib.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  EXPECT_EQ(lib->agents().size(), 2u);
  EXPECT_EQ(g->on_answer(valid_yaml()).kind, LibraryGeneration::Step::Kind::failed) << "nothing after the end";
}

TEST(LibraryGeneration, ARefusedAnswerGoesBackWithTheLoadersErrorThenTheFixIsTaken) {
  auto g = LibraryGeneration::create("translation", "lib.yaml", 3);
  ASSERT_TRUE(g.ok()) << g.error().message;
  // An unknown tool and a name a model cannot call: the loader names the first.
  auto step = g->on_answer(std::string("```yaml\n") + kValid + "```");
  ASSERT_EQ(step.kind, LibraryGeneration::Step::Kind::ask_again);
  EXPECT_EQ(step.error.rfind("lib.yaml:", 0), 0u) << step.error;
  ASSERT_EQ(step.request.messages.size(), 4u);
  EXPECT_EQ(step.request.messages[2].role, llm::Role::assistant);
  EXPECT_NE(step.request.messages[3].content.find(step.error), std::string::npos);
  EXPECT_NE(step.request.messages[3].content.find("2 attempts left"), std::string::npos)
      << step.request.messages[3].content;
  EXPECT_EQ(g->on_answer(valid_yaml()).kind, LibraryGeneration::Step::Kind::done);
  EXPECT_EQ(g->attempts(), 2);
}

TEST(LibraryGeneration, ItGivesUpAfterTheBoundWithTheLastError) {
  auto g = LibraryGeneration::create("translation", "lib.yaml", 2);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->on_answer("I cannot help with that.").kind, LibraryGeneration::Step::Kind::ask_again);
  auto last = g->on_answer(
      "agents:\n  - name: only_a_judge\n    level: -1\n    description: d\n"
      "    responsibility: r\n    workflow: w\n    available_tools: [file_read]\n");
  EXPECT_EQ(last.kind, LibraryGeneration::Step::Kind::failed);
  EXPECT_FALSE(last.error.empty());
  EXPECT_EQ(g->attempts(), 2);
}

TEST(LibraryGeneration, BadArgumentsAreRefused) {
  EXPECT_FALSE(LibraryGeneration::create("  ", "lib.yaml", 3).ok());
  EXPECT_FALSE(LibraryGeneration::create("x", "lib.yaml", 0).ok());
  EXPECT_FALSE(LibraryGeneration::create("x", "lib.yaml", 11).ok());
  // A prompt edited to lose a placeholder is refused when loaded, not when rendered.
  const auto dir = std::filesystem::temp_directory_path() / ("kaisha-libgen-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "pyramid");
  std::ofstream(dir / "pyramid" / "generate_library.md") << "Tools: {{tools}}. Judge: {{judge_tools}}.";
  auto edited = LibraryGeneration::create("x", "lib.yaml", 3, dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(edited.ok());
  EXPECT_NE(edited.error().message.find("generate_library.md: must use exactly the placeholders {{judge_tools}}, "
                                        "{{max_children}}, {{tools}}"),
            std::string::npos)
      << edited.error().message;
  auto missing = LibraryGeneration::create("x", "lib.yaml", 3, "/nonexistent");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("generate_library.md"), std::string::npos) << missing.error().message;
}

}  // namespace
}  // namespace kaisha::pyramid
