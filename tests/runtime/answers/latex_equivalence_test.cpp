#include "runtime/answers/latex_equivalence.hpp"

#include <gtest/gtest.h>

namespace kaisha::answers {
namespace {

// One test per normalisation rule (latex_equivalence.hpp, steps 1-13).

TEST(LatexNormalize, TakesTheLastBox) {
  EXPECT_EQ(normalize_latex(R"(so the answer is $\boxed{\frac{1}{3}}$.)"), R"(\frac{1}{3})");
  EXPECT_EQ(normalize_latex(R"(\boxed{1} or rather \boxed{2})"), "2");
  EXPECT_EQ(normalize_latex(R"(\boxed{\{1, 2\}})"), R"(\{1,2\})");  // braces inside balance
  EXPECT_EQ(normalize_latex(R"(The answer is $\boxed 5$.)"), "5");
  EXPECT_EQ(normalize_latex(R"(\fbox{7})"), "7");
  EXPECT_EQ(normalize_latex(R"(\fbox{7} then \boxed{8})"), "8");
}

TEST(LatexNormalize, TakesHalosBareBoxedWrapper) {
  EXPECT_EQ(normalize_latex("boxed{x + y}"), "x+y");
  EXPECT_EQ(normalize_latex("boxed$0$"), "0");
  EXPECT_EQ(*boxed_content("  boxed{ a^2 }  "), "a^2");
  // Only at the start: the word inside prose is not a wrapper.
  EXPECT_FALSE(boxed_content("unboxed{3}").has_value());
}

TEST(LatexNormalize, LeavesAnUnbalancedBoxAsWritten) {
  EXPECT_FALSE(boxed_content(R"(\boxed{1)").has_value());
  EXPECT_EQ(normalize_latex(R"(\boxed{1)"), R"(\boxed{1)");
  EXPECT_FALSE(boxed_content(R"(\boxedx)").has_value());
  EXPECT_FALSE(boxed_content("42").has_value());
}

TEST(LatexNormalize, UnwrapsOneWholeFormula) {
  EXPECT_EQ(normalize_latex("$x^2$"), "x^2");
  EXPECT_EQ(normalize_latex("$$x^2$$"), "x^2");
  EXPECT_EQ(normalize_latex(R"(\(3\))"), "3");
  EXPECT_EQ(normalize_latex(R"(\[ 3 \])"), "3");
  EXPECT_EQ(normalize_latex("$1$ and $2$"), "$1$and$2$");  // two formulas stay
}

TEST(LatexNormalize, DropsLineBreaksAndThinSpaces) {
  EXPECT_EQ(normalize_latex("1\n2"), "12");
  EXPECT_EQ(normalize_latex(R"(10\!000)"), "10000");
  EXPECT_EQ(normalize_latex(R"(a\\b)"), R"(a\b)");
}

TEST(LatexNormalize, TfracAndDfracAreFrac) {
  EXPECT_EQ(normalize_latex(R"(\dfrac{1}{3})"), R"(\frac{1}{3})");
  EXPECT_EQ(normalize_latex(R"(\tfrac{3}{4})"), R"(\frac{3}{4})");
}

TEST(LatexNormalize, DropsLeftAndRightButNotArrows) {
  EXPECT_EQ(normalize_latex(R"(\left( 1, 2 \right))"), "(1,2)");
  EXPECT_EQ(normalize_latex(R"(\left[0,1\right])"), "[0,1]");
  EXPECT_EQ(normalize_latex(R"(x \rightarrow 0)"), R"(x\rightarrow0)");
  EXPECT_EQ(normalize_latex(R"(\Leftarrow)"), R"(\Leftarrow)");
}

TEST(LatexNormalize, DropsDegrees) {
  EXPECT_EQ(normalize_latex(R"(90^\circ)"), "90");
  EXPECT_EQ(normalize_latex(R"(90^{\circ})"), "90");
}

TEST(LatexNormalize, DropsEscapedDollars) { EXPECT_EQ(normalize_latex(R"(\$5.25)"), "5.25"); }

TEST(LatexNormalize, DropsTrailingUnits) {
  EXPECT_EQ(normalize_latex(R"(5\text{ cm})"), "5");
  EXPECT_EQ(normalize_latex(R"(10 \text{ m} \text{ per second})"), "10");
  EXPECT_EQ(normalize_latex(R"(\text{(A)})"), R"(\text{(A)})");        // nothing before it: the answer itself
  EXPECT_EQ(normalize_latex(R"(\text{odd} + 1)"), R"(\text{odd}+1)");  // not at the end
}

TEST(LatexNormalize, DropsPercent) {
  EXPECT_EQ(normalize_latex(R"(50\%)"), "50");
  EXPECT_EQ(normalize_latex("50%"), "50");
  EXPECT_EQ(normalize_latex("50 %"), "50");
}

TEST(LatexNormalize, AddsALeadingZero) {
  EXPECT_EQ(normalize_latex(".25"), "0.25");
  EXPECT_EQ(normalize_latex(R"(\frac{.3}{2})"), R"(\frac{0.3}{2})");
  EXPECT_EQ(normalize_latex("-.75"), "-0.75");
  EXPECT_EQ(normalize_latex("(1, .5)"), "(1,0.5)");
  EXPECT_EQ(normalize_latex("3.25"), "3.25");
}

TEST(LatexNormalize, DropsAShortLeftSide) {
  EXPECT_EQ(normalize_latex("x = 5"), "5");
  EXPECT_EQ(normalize_latex("k=2x"), "2x");
  EXPECT_EQ(normalize_latex("f(x) = 2"), "f(x)=2");  // left side of 4 bytes
  EXPECT_EQ(normalize_latex("x = y = 1"), "x=y=1");  // two '='
}

TEST(LatexNormalize, DropsAllSpaces) { EXPECT_EQ(normalize_latex("2 \\pi  r\t+ 1"), R"(2\pir+1)"); }

TEST(LatexNormalize, BracesASqrtArgument) {
  EXPECT_EQ(normalize_latex(R"(\sqrt2)"), R"(\sqrt{2})");
  EXPECT_EQ(normalize_latex(R"(3\sqrt 3)"), R"(3\sqrt{3})");
  EXPECT_EQ(normalize_latex(R"(\sqrt{2})"), R"(\sqrt{2})");
  EXPECT_EQ(normalize_latex(R"(\sqrt[3]{x})"), R"(\sqrt[3]{x})");
  EXPECT_EQ(normalize_latex(R"(\sqrt\pi)"), R"(\sqrt\pi)");
}

TEST(LatexNormalize, BracesFracArguments) {
  EXPECT_EQ(normalize_latex(R"(\frac12)"), R"(\frac{1}{2})");
  EXPECT_EQ(normalize_latex(R"(\frac1{2})"), R"(\frac{1}{2})");
  EXPECT_EQ(normalize_latex(R"(\frac{1}{2})"), R"(\frac{1}{2})");
  EXPECT_EQ(normalize_latex(R"(-\frac ab)"), R"(-\frac{a}{b})");
  EXPECT_EQ(normalize_latex(R"(\frac1)"), R"(\frac1)");  // too short: left as written
}

TEST(LatexNormalize, OneHalfIsAFraction) {
  EXPECT_EQ(normalize_latex("0.5"), R"(\frac{1}{2})");
  EXPECT_EQ(normalize_latex("0.50"), "0.50");
}

TEST(LatexNormalize, IntegerSlashIntegerIsAFraction) {
  EXPECT_EQ(normalize_latex("3/4"), R"(\frac{3}{4})");
  EXPECT_EQ(normalize_latex("-3/4"), R"(\frac{-3}{4})");
  EXPECT_EQ(normalize_latex("03/4"), "03/4");
  EXPECT_EQ(normalize_latex("x/4"), "x/4");
  EXPECT_EQ(normalize_latex("1/2/3"), "1/2/3");
}

TEST(LatexEquivalence, EqualNormalForms) {
  EXPECT_TRUE(latex_equivalence(R"(\boxed{\dfrac12})", "0.5"));
  EXPECT_TRUE(latex_equivalence("1/2", ".5"));
  EXPECT_TRUE(latex_equivalence(R"(The answer is $\boxed{90^\circ}$)", "boxed{90}"));
  EXPECT_TRUE(latex_equivalence(R"(\left(3, \sqrt2\right))", "(3,\\sqrt{2})"));
  EXPECT_FALSE(latex_equivalence(R"(\frac{1}{3})", "0.33"));
  EXPECT_FALSE(latex_equivalence("0.25", R"(\frac14)"));  // nothing is evaluated
}

// Every step is one pass: a few MB of each construct normalise in one go (a
// quadratic step would take hours and hit the test's timeout).
TEST(LatexNormalize, LongAnswersStayLinear) {
  const size_t n = 200000;
  std::string units = "1", fracs, lefts, slashes(3'000'000, '1');
  for (size_t i = 0; i < n; ++i) {
    units += R"(\text{m})";
    fracs += R"(\frac12)";
    lefts += R"(\left(\right))";
  }
  EXPECT_EQ(normalize_latex(units), "1");
  EXPECT_EQ(normalize_latex(fracs).size(), n * std::string(R"(\frac{1}{2})").size());
  EXPECT_EQ(normalize_latex(lefts).size(), 2 * n);
  EXPECT_EQ(normalize_latex(R"(\boxed{)" + slashes + "}"), slashes);
}

}  // namespace
}  // namespace kaisha::answers
