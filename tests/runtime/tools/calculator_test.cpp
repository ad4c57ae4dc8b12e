// The calculator's goldens (effgen.md §23 item 29, Table 41) and the inputs it
// must refuse without evaluating anything.
#include "runtime/tools/calculator.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

namespace kaisha::tools {
namespace {

double value_of(const std::string& expr) {
  auto r = calculate(expr);
  EXPECT_TRUE(r.ok()) << expr << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value()["result"].get<double>() : NAN;
}

Error error_of(const std::string& expr) {
  auto r = calculate(expr);
  EXPECT_FALSE(r.ok()) << expr << " evaluated to " << (r.ok() ? r.value().dump() : "");
  return r.ok() ? Error{} : r.error();
}

TEST(Calculator, PaperGoldenIsCorrectedArithmetic) {
  auto r = calculate("(123 + 456) * 789 / 12");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r.value()["result"].get<double>(), 38069.25);
  EXPECT_EQ(r.value()["formatted"], "38069.25");
}

TEST(Calculator, ImportIsASecurityError) {
  Error e = error_of("__import__('os')");
  EXPECT_EQ(e.code, "security");
  EXPECT_EQ(e.message.rfind("SecurityError: name '__import__' is not allowed (at column 1)", 0), 0u) << e.message;
}

TEST(Calculator, Table42Expressions) {
  EXPECT_EQ(value_of("2 + 2 * 3"), 8);
  EXPECT_EQ(value_of("(5 + 3) * (10 - 2) / 4"), 16);
  EXPECT_EQ(value_of("sqrt(pow(3, 2) + pow(4, 2))"), 5);
  EXPECT_NEAR(value_of("sin(pi/4) + cos(pi/4)"), std::sqrt(2.0), 1e-12);
  EXPECT_EQ(value_of("mean([1, 2, 3, 4, 5])"), 3);
  EXPECT_NEAR(value_of("log(exp(5) * sqrt(16)) + abs(-10)"), 5 + std::log(4.0) + 10, 1e-12);
}

TEST(Calculator, PythonArithmeticSemantics) {
  EXPECT_EQ(value_of("7 // 2"), 3);
  EXPECT_EQ(value_of("-7 // 2"), -4);
  EXPECT_EQ(value_of("-7 % 3"), 2);
  EXPECT_EQ(value_of("7 % -3"), -2);
  EXPECT_EQ(value_of("2 ** 10"), 1024);
  EXPECT_EQ(value_of("-2 ** 2"), -4);
  EXPECT_EQ(value_of("2 ** -1"), 0.5);
  EXPECT_EQ(value_of("2 ** 3 ** 2"), 512);  // right-associative
  EXPECT_EQ(value_of("round(2.5)"), 2);     // half to even
  EXPECT_EQ(value_of("round(3.14159, 2)"), 3.14);
  EXPECT_EQ(value_of("floor(-1.5) + ceil(1.2)"), 0);
}

TEST(Calculator, FunctionsOfTable41) {
  EXPECT_EQ(value_of("min(3, 1, 2) + max([4, 9, 2]) + sum([1, 2, 3])"), 1 + 9 + 6);
  EXPECT_NEAR(value_of("atan2(1, 1)"), M_PI / 4, 1e-12);
  EXPECT_NEAR(value_of("asin(1) + acos(1) + atan(0) + tan(0)"), M_PI / 2, 1e-12);
  EXPECT_EQ(value_of("log10(1000) + log2(8) + log(8, 2)"), 9);
  EXPECT_NEAR(value_of("tau - 2 * pi + e"), M_E, 1e-12);
  EXPECT_EQ(value_of("median([5, 1, 3, 2])"), 2.5);
  EXPECT_EQ(value_of("variance([2, 4, 4, 4, 5, 5, 7, 9])"), 32.0 / 7);  // sample, as Python
  EXPECT_NEAR(value_of("stdev([2, 4, 4, 4, 5, 5, 7, 9])"), std::sqrt(32.0 / 7), 1e-12);
}

TEST(Calculator, ComparisonsAndLogic) {
  auto r = calculate("1 < 2 < 3 and not 2 == 3");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()["result"], true);
  EXPECT_EQ(r.value()["formatted"], "True");
  EXPECT_EQ(calculate("3 > 2 > 2").value()["result"], false);
  EXPECT_EQ(calculate("2 != 2 or 5 >= 5").value()["result"], true);
  EXPECT_EQ(calculate("[1, 2] == [1, 2]").value()["result"], true);
  // Short-circuit, as in Python: the division is never evaluated.
  EXPECT_EQ(calculate("False and 1 / 0").value()["result"], false);
  EXPECT_EQ(value_of("0 or 7"), 7);
}

TEST(Calculator, FormattingRoundsToTwoDecimals) {
  auto r = calculate("sqrt(2)");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["formatted"], "1.41");
  EXPECT_EQ(calculate("10 / 4").value()["formatted"], "2.5");
  EXPECT_EQ(calculate("6 / 3").value()["result"], 2);  // integral results are integers
  EXPECT_EQ(calculate("[1, 2.5]").value()["formatted"], "[1, 2.5]");
}

TEST(Calculator, RejectsWhatIsNotWhitelisted) {
  struct Case {
    const char* expr;
    const char* code;
    const char* words;
  } cases[] = {
      {"x = 5", "security", "name 'x' is not allowed"},
      {"1 = 5", "security", "assignment is not allowed"},
      {"pi.real", "security", "attribute access"},
      {"(1).real", "security", "attribute access"},
      {"import os", "security", "imports are not allowed"},
      {"lambda: 1", "security", "lambda"},
      {"open('/etc/passwd')", "security", "name 'open'"},
      {"eval('1')", "security", "name 'eval'"},
      {"foo + 1", "security", "name 'foo'"},
      {"[x for x in y]", "security", "name 'x' is not allowed"},
      {"'abc'", "security", "string literals"},
      {"1 +", "syntax", "unexpected 'end of expression'"},
      {"(1 + 2", "syntax", "expected ')'"},
      {"1 $ 2", "syntax", "unexpected character '$'"},
      {"", "syntax", "empty"},
      {"1 / 0", "math", "ZeroDivisionError: division by zero"},
      {"5 % 0", "math", "ZeroDivisionError"},
      {"sqrt(-1)", "math", "math domain error"},
      {"log(0)", "math", "math domain error"},
      {"10 ** 400", "math", "OverflowError"},
      {"(-8) ** (1/3)", "math", "fractional power"},
      {"stdev([1])", "math", "at least two data points"},
      {"sin", "type", "must be called"},
      {"pi(2)", "type", "constant, not a function"},
      {"atan2(1)", "type", "atan2() takes 2 arguments, got 1"},
      {"[1] + 2", "type", "expected a number, got a list"},
  };
  for (const auto& c : cases) {
    Error e = error_of(c.expr);
    EXPECT_EQ(e.code, c.code) << c.expr << ": " << e.message;
    EXPECT_NE(e.message.find(c.words), std::string::npos) << c.expr << ": " << e.message;
    if (*c.expr) EXPECT_NE(e.message.find("column"), std::string::npos) << c.expr << ": " << e.message;
  }
}

TEST(Calculator, LimitsStopHostileInputs) {
  EXPECT_EQ(error_of(std::string(2000, '1')).code, "syntax");
  Error deep = error_of(std::string(300, '(') + "1" + std::string(300, ')'));
  EXPECT_NE(deep.message.find("nested deeper"), std::string::npos) << deep.message;
  EXPECT_NE(error_of(std::string(300, '-') + "1").message.find("nested deeper"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::tools
