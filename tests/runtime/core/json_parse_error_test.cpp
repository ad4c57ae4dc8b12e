#include "runtime/core/json_parse_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kaisha {
namespace {

std::string reason_for(const std::string& text) {
  try {
    json parsed = json::parse(text);
    ADD_FAILURE() << "no parse error for " << text << ": " << parsed.dump();
  } catch (const json::parse_error& e) {
    return json_parse_error_reason(e);
  }
  return {};
}

TEST(JsonParseErrorReason, DropsTheLibraryPrefixAndPosition) {
  std::string r = reason_for("{\"a\": tru}");
  EXPECT_EQ(r.rfind("syntax error while parsing value", 0), 0u) << r;
  EXPECT_EQ(r.find("json.exception"), std::string::npos) << r;
  EXPECT_EQ(r.find("line 1"), std::string::npos) << r;
  EXPECT_NE(r.find("last read: '\"a\": tru}'"), std::string::npos) << r;
}

// nlohmann quotes the last bytes read, cut at any byte: an ill-formed byte or
// the first half of a valid two-byte character. Both come out as \xNN, so the
// reason can go into a JSON message (dump() throws on invalid UTF-8).
TEST(JsonParseErrorReason, NonAsciiBytesAreWrittenAsHex) {
  std::string bad = reason_for("\"\xff\"");
  EXPECT_NE(bad.find("\\xFF"), std::string::npos) << bad;
  std::string half = reason_for("[1,\xc3\xa9]");
  EXPECT_NE(half.find("last read: '1,\\xC3'"), std::string::npos) << half;
  for (const std::string& r : {bad, half}) {
    for (char c : r) EXPECT_LT(static_cast<unsigned char>(c), 0x80) << r;
    EXPECT_NO_THROW((void)json(r).dump()) << r;
  }
}

}  // namespace
}  // namespace kaisha
