#include "runtime/pyramid/final_output.hpp"

#include <gtest/gtest.h>

namespace kaisha::pyramid {
namespace {

TEST(FinalOutput, ASuccessWithFilesIsReadAndWrittenBack) {
  auto r = parse_final_output(R"({"status": "success", "output": "main.py prints 川 🌊",
    "error_information": "ignored on success",
    "files": [{"path": "./code_run//main.py", "description": "the entry script"}], "task_id": "t1"})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->success);
  EXPECT_EQ(r->output, "main.py prints 川 🌊");
  EXPECT_EQ(r->error_information, "");
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].path, "code_run/main.py");  // normalised
  EXPECT_EQ(r->to_json(), (json{{"status", "success"},
                                {"output", "main.py prints 川 🌊"},
                                {"error_information", ""},
                                {"files", {{{"path", "code_run/main.py"}, {"description", "the entry script"}}}}}));
}

TEST(FinalOutput, AnErrorCarriesItsReason) {
  auto r = parse_final_output(R"({"status": "error", "output": "tests fail", "error_information": "2 of 5 failed"})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->error_information, "2 of 5 failed");
  EXPECT_FALSE(r->to_json().contains("files"));
}

TEST(FinalOutput, EveryMistakeSaysWhatToChange) {
  struct Case {
    std::string arguments;
    std::string words;
  } cases[] = {
      {"not json", "the arguments are not JSON"},
      {"[1]", "must be a JSON object"},
      {R"({"output": "x"})", "status is required"},
      {R"({"status": "done", "output": "x"})", "status must be \"success\" or \"error\", not \"done\""},
      {R"({"status": "success"})", "output is required, as a string"},
      {R"({"status": "success", "output": {"a": 1}})", "output is required, as a string"},
      {R"({"status": "error", "output": "x"})", "status \"error\" needs the reason in error_information"},
      {R"({"status": "error", "output": "x", "error_information": "  "})", "needs the reason"},
      {R"({"status": "success", "output": "x", "verdict": 1})", "unknown key \"verdict\""},
      {R"({"status": "success", "output": "x", "files": "a.txt"})", "files must be a list"},
      {R"({"status": "success", "output": "x", "files": [{"path": "/etc/passwd", "description": "d"}]})", "files[0]: "},
      {R"({"status": "success", "output": "x", "files": [{"path": "../other/x", "description": "d"}]})", "files[0]: "},
      {R"({"status": "success", "output": "x", "files": [{"path": "a.txt"}]})", "files[0] (a.txt) needs a description"},
      {R"({"status": "success", "output": "x", "files": [{"path": ".", "description": "d"}]})", "names no file"},
  };
  for (const auto& c : cases) {
    auto r = parse_final_output(c.arguments);
    ASSERT_FALSE(r.ok()) << c.arguments;
    EXPECT_EQ(r.error().code, "final_output");
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << c.arguments << "\n" << r.error().message;
  }
}

// infiagent.md §10 item 37: a large inline payload belongs in a file.
TEST(FinalOutput, ALargeInlineOutputIsSentBackToAFile) {
  const std::string big(20 * 1024, 'x');
  auto r = parse_final_output(json{{"status", "success"}, {"output", big}}.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("write the content to a file in the workspace"), std::string::npos)
      << r.error().message;
  FinalOutputLimits roomy;
  roomy.max_output_bytes = 64 * 1024;
  EXPECT_TRUE(parse_final_output(json{{"status", "success"}, {"output", big}}.dump(), roomy).ok());
}

TEST(FinalOutput, DeepOrHugeArgumentsAreRefusedNotParsed) {
  std::string deep =
      R"({"status": "success", "output": "x", "files": )" + std::string(10000, '[') + std::string(10000, ']') + "}";
  auto r = parse_final_output(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not JSON"), std::string::npos) << r.error().message;
}

TEST(FinalOutput, AFailedOutputIsAnErrorWithTheReason) {
  FinalOutput f = failed_output("no final_output after 100 turns");
  EXPECT_FALSE(f.success);
  EXPECT_EQ(f.to_json()["status"], "error");
  EXPECT_EQ(f.to_json()["error_information"], "no final_output after 100 turns");
}

}  // namespace
}  // namespace kaisha::pyramid
