#include "runtime/hiva/environment/program_extract.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace program_extract_test {

TEST(ExtractProgram, TakesTheLastPythonBlock) {
  std::string answer =
      "First try:\n```python\ndef f(): return 1\n```\nA shell line:\n```bash\nls\n```\n"
      "Better:\n```Python3\ndef f():\n    return 2\n```\nDone.";
  EXPECT_EQ(extract_program(answer), "def f():\n    return 2\n");
}

TEST(ExtractProgram, ElseTakesTheLastBlockOfAnyLanguage) {
  EXPECT_EQ(extract_program("```\nprint(1)\n```\nor\n~~~text\nprint(2)\n~~~\n"), "print(2)\n");
}

TEST(ExtractProgram, ElseTakesTheWholeAnswer) {
  EXPECT_EQ(extract_program("def f(): return 3"), "def f(): return 3");
  EXPECT_EQ(extract_program("Use ``` fences? Not here: `x = 1`."), "Use ``` fences? Not here: `x = 1`.");
}

TEST(ExtractProgram, ABlockLeftOpenRunsToTheEnd) {
  EXPECT_EQ(extract_program("Here:\n```py\ndef f():\n    return 4"), "def f():\n    return 4\n");
}

TEST(ExtractProgram, OnlyALongEnoughFenceOfTheSameCharacterCloses) {
  // The inner ``` (shorter) and ~~~ (other character) are content of the outer ````.
  std::string answer = "````python\ns = '''\n```\n~~~\n'''\n````\n";
  EXPECT_EQ(extract_program(answer), "s = '''\n```\n~~~\n'''\n");
  // A closing fence with text after it is content too.
  EXPECT_EQ(extract_program("```python\nx = 1\n``` not a fence\n```\n"), "x = 1\n``` not a fence\n");
}

TEST(ExtractProgram, AcceptsIndentedFencesAndCrlf) {
  EXPECT_EQ(extract_program("   ```python\r\nx = 1\r\n   ```\r\n"), "x = 1\r\n");
  // Four spaces make an indented code line, not a fence.
  EXPECT_EQ(extract_program("    ```python\nx = 1\n"), "    ```python\nx = 1\n");
}

}  // namespace program_extract_test
}  // namespace kaisha::hiva
