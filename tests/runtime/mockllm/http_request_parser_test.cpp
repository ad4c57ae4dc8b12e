#include "runtime/mockllm/http_request_parser.hpp"

#include <gtest/gtest.h>

namespace kaisha::mockllm {
namespace {

using State = HttpRequestParser::State;

TEST(HttpRequestParser, ContentLengthBodyFedByteByByte) {
  const std::string wire =
      "POST /v1beta/models/m:streamGenerateContent?alt=sse HTTP/1.1\r\n"
      "Host: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
  HttpRequestParser p;
  HttpRequest r;
  for (size_t i = 0; i + 1 < wire.size(); ++i) {
    p.feed(wire.substr(i, 1));
    ASSERT_EQ(p.next(r), State::need_more) << "after " << i + 1 << " bytes";
  }
  p.feed(wire.substr(wire.size() - 1));
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.path, "/v1beta/models/m:streamGenerateContent");
  EXPECT_EQ(r.query, "alt=sse");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, "{\"a\":1}");
  EXPECT_TRUE(r.keep_alive);
  EXPECT_EQ(p.buffered(), 0u);
}

TEST(HttpRequestParser, PipelinedRequestsComeOutInOrder) {
  HttpRequestParser p;
  p.feed(
      "GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nhiGET /c HTTP/1.1\r\nConnection: "
      "close\r\n\r\n");
  HttpRequest r;
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.path, "/a");
  EXPECT_TRUE(r.body.empty());
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.path, "/b");
  EXPECT_EQ(r.body, "hi");
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.path, "/c");
  EXPECT_FALSE(r.keep_alive);
  EXPECT_EQ(p.next(r), State::need_more);
}

TEST(HttpRequestParser, ChunkedBodyWithExtensionsAndTrailers) {
  HttpRequestParser p;
  HttpRequest r;
  p.feed("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n");
  EXPECT_EQ(p.next(r), State::need_more);
  p.feed("6\r\n world\r\n0\r\nX-Trailer: 1\r\n");
  EXPECT_EQ(p.next(r), State::need_more);
  p.feed("\r\nGET /next HTTP/1.1\r\n\r\n");
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.body, "hello world");
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.path, "/next");
}

TEST(HttpRequestParser, KeepAliveRulesPerVersion) {
  HttpRequest r;
  HttpRequestParser a;
  a.feed("GET / HTTP/1.0\r\n\r\n");
  ASSERT_EQ(a.next(r), State::complete);
  EXPECT_FALSE(r.keep_alive);
  EXPECT_EQ(r.minor_version, 0);
  HttpRequestParser b;
  b.feed("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
  ASSERT_EQ(b.next(r), State::complete);
  EXPECT_TRUE(r.keep_alive);
  HttpRequestParser c;
  c.feed("GET / HTTP/1.1\r\nConnection: foo, close\r\n\r\n");
  ASSERT_EQ(c.next(r), State::complete);
  EXPECT_FALSE(r.keep_alive);
}

TEST(HttpRequestParser, ExpectContinueIsSignalledOnceWhileTheBodyIsMissing) {
  HttpRequestParser p;
  HttpRequest r;
  p.feed("POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(p.next(r), State::need_more);
  EXPECT_TRUE(p.take_continue());
  EXPECT_FALSE(p.take_continue());
  p.feed("abc");
  ASSERT_EQ(p.next(r), State::complete);
  EXPECT_EQ(r.body, "abc");
}

struct BadCase {
  const char* wire;
  int status;
  const char* says;
};

class HttpRequestParserRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(HttpRequestParserRejects, WithStatusAndReason) {
  HttpRequestParser p(HttpRequestParser::Limits{.max_header_bytes = 256, .max_body_bytes = 100});
  p.feed(GetParam().wire);
  HttpRequest r;
  ASSERT_EQ(p.next(r), State::error);
  EXPECT_EQ(p.error_status(), GetParam().status);
  EXPECT_NE(p.error_message().find(GetParam().says), std::string::npos) << p.error_message();
  p.feed("GET / HTTP/1.1\r\n\r\n");  // nothing more is read after an error
  EXPECT_EQ(p.next(r), State::error);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HttpRequestParserRejects,
    ::testing::Values(
        BadCase{"GARBAGE\r\n\r\n", 400, "malformed request line"},
        BadCase{"GET / HTTP/2.0\r\n\r\n", 505, "unsupported version"},
        BadCase{"GET / FTP/1.0\r\n\r\n", 400, "no HTTP version"},
        BadCase{"GET nopath HTTP/1.1\r\n\r\n", 400, "malformed request target"},
        BadCase{"GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400, "malformed header line"},
        BadCase{"GET / HTTP/1.1\r\n folded: x\r\n\r\n", 400, "malformed header line"},
        BadCase{"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "malformed Content-Length"},
        BadCase{"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "conflicting Content-Length"},
        BadCase{"POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413, "exceeds 100"},
        BadCase{"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported Transfer-Encoding"},
        BadCase{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "malformed chunk size"},
        BadCase{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400, "not followed by CRLF"},
        BadCase{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n", 413, "exceeds 100"}));

TEST(HttpRequestParser, OversizedHeadersAreRejectedBeforeTheyEnd) {
  HttpRequestParser p(HttpRequestParser::Limits{.max_header_bytes = 64, .max_body_bytes = 100});
  HttpRequest r;
  p.feed("GET / HTTP/1.1\r\nX-Long: " + std::string(100, 'a'));
  ASSERT_EQ(p.next(r), State::error);
  EXPECT_EQ(p.error_status(), 431);
}

}  // namespace
}  // namespace kaisha::mockllm
