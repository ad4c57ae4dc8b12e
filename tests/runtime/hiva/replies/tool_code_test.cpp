#include "runtime/hiva/replies/tool_code.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace tool_code_test {

const std::string kSha256 =
    "import hashlib\n\ndef tool_function(input_data: str, **kwargs):\n    \"\"\"\n    Calculates the SHA256 hash of a "
    "given string.\n    \"\"\"\n    if not isinstance(input_data, str):\n        return \"Error: Input must be a "
    "string.\"\n    try:\n        encoded_string = input_data.encode('utf-8')\n        return "
    "hashlib.sha256(encoded_string).hexdigest()\n    except Exception as e:\n        return f\"Error during hashing: "
    "{str(e)}\"";

// Fig. 12's expected output, as a model returns it.
TEST(ToolCode, ReadsThePythonBlock) {
  Parsed<std::string> p = parse_tool_code("Here is the tool:\r\n\r\n```python\r\n" + kSha256 + "\r\n```\r\nEnjoy!");
  std::string expected = kSha256;
  EXPECT_EQ(p.value, expected);
  EXPECT_EQ(p.problem, std::nullopt);
  EXPECT_FALSE(p.defaulted);
  EXPECT_EQ(parse_tool_code("```Python3\n" + kSha256 + "\n```").value, kSha256);
  EXPECT_EQ(parse_tool_code("```\n" + kSha256 + "\n```").value, kSha256);
}

TEST(ToolCode, PrefersTheBlockThatDefinesTheTool) {
  Parsed<std::string> p =
      parse_tool_code("Usage:\n```python\nprint(tool_function('x'))\n```\nCode:\n```py\n" + kSha256 + "\n```\n");
  EXPECT_EQ(p.value, kSha256);
  EXPECT_EQ(*p.problem, "tool code reply: 2 code blocks; the one defining tool_function is used");
  Parsed<std::string> json_only = parse_tool_code("```json\n{\"a\": 1}\n```\n```python\n" + kSha256 + "\n```");
  EXPECT_EQ(json_only.value, kSha256);
  EXPECT_EQ(json_only.problem, std::nullopt);
}

TEST(ToolCode, WithoutAFenceTheWholeReplyIsTheCode) {
  Parsed<std::string> p = parse_tool_code("\n" + kSha256 + "\n\n");
  EXPECT_EQ(p.value, kSha256);
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem, "tool code reply: no ```python block; the whole reply is the code");
}

TEST(ToolCode, AnUnclosedBlockIsKeptWithAProblem) {
  Parsed<std::string> p =
      parse_tool_code("```python\ndef tool_function(input_data):\n    return input_data  # 日本語 ✓\n");
  EXPECT_EQ(p.value, "def tool_function(input_data):\n    return input_data  # 日本語 ✓");
  EXPECT_EQ(*p.problem, "tool code reply: the code block is not closed (the reply may be cut off)");
}

TEST(ToolCode, InvalidUtf8IsRefused) {
  Parsed<std::string> p = parse_tool_code("```python\ndef tool_function(input_data):\n    return '\xC3('\n```");
  EXPECT_EQ(p.value, "");
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem, "tool code reply: invalid UTF-8 at byte 54 (0xC3); the code is refused");
}

TEST(ToolCode, EmptyBlockIsDefaulted) {
  Parsed<std::string> p = parse_tool_code("```python\n\n```");
  EXPECT_TRUE(p.defaulted);
  EXPECT_NE(p.problem->find("the code block is empty"), std::string::npos);
}

}  // namespace tool_code_test
}  // namespace kaisha::hiva
