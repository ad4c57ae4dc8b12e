// HTML to text, simple CSS selection and HASHIRU's extractive summary.
#include "runtime/tools/web_page.hpp"

#include <gtest/gtest.h>

namespace kaisha::tools {
namespace {

TEST(WebPage, VisibleTextOnly) {
  const std::string html =
      "<html><head><title>T</title><style>p{color:red}</style></head><body>"
      "<script>var x = '<p>no</p>';</script><!-- hidden -->"
      "<h1>Rivers</h1><p>Water &amp; stone&nbsp;meet &lt;here&gt; &#8212; &#x41;.</p>"
      "<ul><li>one</li><li>two</li></ul>a < b</body></html>";
  EXPECT_EQ(html_to_text(html), "Rivers\nWater & stone meet <here> \xE2\x80\x94 A.\none\ntwo\na < b");
}

TEST(WebPage, CssSelectorPicksElements) {
  const std::string html =
      "<div id=\"nav\">menu</div><article class=\"post main\"><p>first</p><div><div>deep</div></div></article>"
      "<article class='post'>second</article><span class=\"post\">third</span>";
  EXPECT_EQ(html_to_text(select_css(html, "#nav").value()), "menu");
  EXPECT_EQ(html_to_text(select_css(html, "article").value()), "first\ndeep\nsecond");
  EXPECT_EQ(html_to_text(select_css(html, ".post").value()), "first\ndeep\nsecond\nthird");
  EXPECT_EQ(html_to_text(select_css(html, "span.post").value()), "third");
  EXPECT_EQ(select_css(html, "#missing").value(), "");
  auto bad = select_css(html, "div > p");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("is not supported"), std::string::npos);
}

TEST(WebPage, SummaryKeepsThreeBestSentences) {
  const std::string text =
      "Rivers carry water from the mountains to the sea. Rivers shape valleys and carry water and stone. "
      "Cats sleep. The sea receives the water of many rivers every day of the year. Ok. "
      "Water in rivers moves fast in spring [12].";
  const std::string s = summarize_text(text);
  EXPECT_EQ(std::count(s.begin(), s.end(), '.'), 3) << s;
  EXPECT_EQ(s.find("Cats sleep"), std::string::npos) << s;
  EXPECT_EQ(s.find("[12]"), std::string::npos) << s;
  EXPECT_NE(s.find("Rivers carry water"), std::string::npos) << s;
  EXPECT_EQ(summarize_text(""), "");
}

TEST(WebPage, Latin1BecomesUtf8) {
  EXPECT_EQ(to_utf8("caf\xE9"), "caf\xC3\xA9");
  EXPECT_EQ(to_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  // A UTF-8 page with one stray byte keeps its text; only that byte is re-read.
  EXPECT_EQ(to_utf8("\xE6\x97\xA5 caf\xE9"), "\xE6\x97\xA5 caf\xC3\xA9");
}

}  // namespace
}  // namespace kaisha::tools
