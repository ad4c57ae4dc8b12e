// The program's text; what it does when run is tested for real in
// sandbox/unit_test_run_test.cpp.
#include "runtime/hiva/environment/test_program.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace test_program_test {

TEST(BuildTestProgram, CarriesProgramTestsAndEntryPointAsPythonLiterals) {
  std::string p = build_test_program("def f():\n    return \"x\"\n", "assert f() == 'x'", "f");
  EXPECT_NE(p.find("PROGRAM = \"def f():\\n    return \\\"x\\\"\\n\"\n"), std::string::npos) << p.substr(0, 300);
  EXPECT_NE(p.find("TESTS = \"assert f() == 'x'\"\n"), std::string::npos);
  EXPECT_NE(p.find("ENTRY_POINT = \"f\"\n"), std::string::npos);
  EXPECT_NE(p.find("\nmain()\n"), std::string::npos);  // the harness follows
  EXPECT_LT(p.find("ENTRY_POINT = "), p.find("def main():"));
}

TEST(BuildTestProgram, WritesTextOutsideAsciiAsUtf8NotSurrogatePairs) {
  std::string p = build_test_program("s = '\xF0\x9F\x98\x80 caf\xC3\xA9'", "assert True", "");
  EXPECT_NE(p.find("PROGRAM = \"s = '\xF0\x9F\x98\x80 caf\xC3\xA9'\"\n"), std::string::npos);
  EXPECT_EQ(p.find("\\ud83d"), std::string::npos);
}

TEST(BuildTestProgram, ReplacesIllFormedUtf8) {
  std::string p = build_test_program("s = 'caf\xE9'", "assert True", "");
  EXPECT_NE(p.find("PROGRAM = \"s = 'caf\xEF\xBF\xBD'\"\n"), std::string::npos);
}

TEST(BuildTestProgram, EscapesControlCharacters) {
  std::string p = build_test_program(std::string("a\0b\x01", 4), "", "");
  EXPECT_NE(p.find("PROGRAM = \"a\\u0000b\\u0001\"\n"), std::string::npos);
}

}  // namespace test_program_test
}  // namespace kaisha::hiva
