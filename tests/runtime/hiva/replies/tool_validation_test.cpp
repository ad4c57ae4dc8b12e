#include "runtime/hiva/replies/tool_validation.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace tool_validation_test {

const std::string kHeader = "def tool_function(input_data, **kwargs):\n";

// The message of a refused tool, or "accepted".
std::string verdict(const std::string& code, const ToolCodeLimits& limits = {}) {
  Status s = validate_tool_source(code, limits);
  if (s.ok()) return "accepted";
  EXPECT_EQ(s.error().code, "tool");
  return s.error().message;
}

TEST(ToolValidation, AcceptsTheFigureTools) {
  // Figs. 12 and 13.
  EXPECT_EQ(
      verdict("import hashlib\n\ndef tool_function(input_data: str, **kwargs):\n    \"\"\"\n    Calculates the "
              "SHA256 hash.\n    \"\"\"\n    if not isinstance(input_data, str):\n        return \"Error: Input "
              "must be a string.\"\n    try:\n        # Encode the string to bytes before hashing\n        return "
              "hashlib.sha256(input_data.encode('utf-8')).hexdigest()\n    except Exception as e:\n        "
              "return f\"Error during hashing: {str(e)}\"\n"),
      "accepted");
  EXPECT_EQ(verdict("import re\ndef tool_function(input_data: str, **kwargs):\n    # Extracts two numbers and "
                    "calculates their ratio safely.\n    numbers = re.findall(r'\\d+\\.?\\d*', input_data)\n    a, b "
                    "= float(numbers[0]), float(numbers[1])\n    if b == 0:\n        return \"Error: Cannot divide "
                    "by zero.\"\n    return f\"The ratio is: {a / b}\"\n"),
            "accepted");
}

TEST(ToolValidation, ImportingOsIsRejectedWithItsLine) {
  EXPECT_EQ(verdict("import json\nimport os\n" + kHeader + "    return os.getcwd()\n"),
            "tool code: line 2: imports os (rule: forbidden module); line 4: uses os (rule: forbidden module)");
  EXPECT_EQ(verdict("from os import path\n" + kHeader + "    return 1\n"),
            "tool code: line 1: imports os (rule: forbidden module)");
  EXPECT_EQ(verdict("import os.path as p\n" + kHeader + "    return 1\n"),
            "tool code: line 1: imports os (rule: forbidden module)");
}

TEST(ToolValidation, OsInsideAStringOrACommentIsAccepted) {
  EXPECT_EQ(
      verdict("# we never import os here\n" + kHeader +
              "    note = 'import os'  # os is not used\n    doc = \"\"\"\n    subprocess, os, eval(\n    \"\"\"\n"
              "    raw = rb'os' + b\"socket\"\n    return f\"{input_data} mentions os\"\n"),
      "accepted");
  EXPECT_EQ(verdict(kHeader + "    positions = [1]\n    cost = 2\n    return positions, cost\n"), "accepted");
}

TEST(ToolValidation, EachForbiddenModuleIsRejected) {
  for (const std::string_view module : forbidden_modules()) {
    std::string code = "import " + std::string(module) + "\n" + kHeader + "    return 1\n";
    EXPECT_EQ(verdict(code), "tool code: line 1: imports " + std::string(module) + " (rule: forbidden module)");
  }
  // Reached as an attribute of an allowed module.
  EXPECT_EQ(verdict("import pathlib\n" + kHeader + "    return pathlib.os.listdir('/')\n"),
            "tool code: line 3: uses os (rule: forbidden module)");
}

TEST(ToolValidation, EscapeHatchesAreRejected) {
  EXPECT_EQ(verdict(kHeader + "    m = __import__('o' + 's')\n"),
            "tool code: line 2: uses __import__ (rule: escape hatch)");
  EXPECT_EQ(verdict("import sys\n" + kHeader + "    return sys.modules['o' + 's']\n"),
            "tool code: line 3: uses sys.modules (rule: escape hatch)");
  EXPECT_EQ(verdict("from sys import modules\n" + kHeader + "    return 1\n"),
            "tool code: line 1: imports sys.modules (rule: escape hatch)");
  EXPECT_EQ(verdict(kHeader + "    return ().__class__.__bases__[0].__subclasses__()\n"),
            "tool code: line 2: uses __subclasses__ (rule: escape hatch)");
  EXPECT_EQ(verdict(kHeader + "    return globals()['__builtins__']\n"),
            "tool code: line 2: uses globals() (rule: escape hatch)");
  EXPECT_EQ(verdict("import sys\n" + kHeader + "    return sys.maxsize\n"), "accepted");
}

TEST(ToolValidation, EvalAndExecAreRejectedMethodsNamedSoAreNot) {
  EXPECT_EQ(verdict(kHeader + "    return eval(input_data)\n"), "tool code: line 2: uses eval (rule: no eval/exec)");
  EXPECT_EQ(verdict(kHeader + "    exec('x = 1')\n"), "tool code: line 2: uses exec (rule: no eval/exec)");
  EXPECT_EQ(verdict("import ast\n" + kHeader + "    return ast.literal_eval(input_data), model.eval()\n"), "accepted");
}

TEST(ToolValidation, CodeInsideFStringBracesIsScanned) {
  EXPECT_EQ(verdict(kHeader + "    return f\"{__import__('os').getcwd()}\"\n"),
            "tool code: line 2: uses __import__ (rule: escape hatch)");
  EXPECT_EQ(verdict(kHeader + "    return f\"{{os}} is literal\"\n"), "accepted");
}

TEST(ToolValidation, TheSignatureIsRequired) {
  EXPECT_EQ(verdict("def helper(input_data):\n    return 1\n"),
            "tool code: no top-level `def tool_function(input_data, ...)` (rule: signature)");
  EXPECT_EQ(verdict("class T:\n    def tool_function(input_data):\n        return 1\n"),
            "tool code: no top-level `def tool_function(input_data, ...)` (rule: signature)");
  EXPECT_EQ(verdict("def tool_function(data, **kwargs):\n    return data\n"),
            "tool code: line 1: tool_function's first parameter is data, expected input_data (rule: signature)");
  EXPECT_EQ(verdict("def tool_function(input_data: dict, limit: int = 3, **kwargs) -> str:\n    return ''\n"),
            "accepted");
  EXPECT_EQ(verdict(""), "tool code: no top-level `def tool_function(input_data, ...)` (rule: signature)");
}

TEST(ToolValidation, SizeUtf8StringsAndNames) {
  std::string big = kHeader + "    return '" + std::string(100, 'x') + "'\n";
  EXPECT_EQ(verdict(big, ToolCodeLimits{64}),
            "tool code: " + std::to_string(big.size()) + " bytes, over the limit of 64 (rule: size)");
  EXPECT_EQ(verdict(kHeader + "    return '\xFF'\n"),
            "tool code: line 2: invalid UTF-8 at byte 54 (0xFF) (rule: UTF-8)");
  EXPECT_EQ(verdict(kHeader + "    return 'unclosed\n    x = 1\n"),
            "tool code: line 2: a string that is never closed (rule: strings)");
  EXPECT_EQ(verdict(kHeader + "    import \xEF\xBD\x8F\xEF\xBD\x93\n    return 1\n"),  // full-width "ｏｓ"
            "tool code: line 2: a non-ASCII character outside strings and comments (rule: ASCII names)");
  EXPECT_EQ(verdict(kHeader + "    return '日本語 🐍'  # コメント\n"), "accepted");
}

}  // namespace tool_validation_test
}  // namespace kaisha::hiva
