// MCP over a pair of real pipes: newline-delimited JSON-RPC in and out.
#include "protocols/mcp/mcp_stdio_transport.hpp"

#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/conformance_fixture.hpp"

namespace kaisha::mcp {
namespace {

std::vector<json> read_all_lines(int fd) {
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) all.append(buf, static_cast<size_t>(n));
  std::vector<json> out;
  size_t start = 0;
  for (size_t nl; (nl = all.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(json::parse(all.substr(start, nl - start)));
  return out;
}

TEST(McpStdio, AnswersEachLineAndSurvivesGarbage) {
  auto backend = std::move(ConformanceFixture::load().value());
  McpServerOptions opts;
  opts.limits.body.max_bytes = 1000;
  McpServer server(*backend, opts);
  int in[2], out[2];
  ASSERT_EQ(::pipe(in), 0);
  ASSERT_EQ(::pipe(out), 0);
  std::thread serving([&] {
    McpStdioTransport t(server, in[0], out[1]);
    EXPECT_TRUE(t.serve().ok());
    ::close(out[1]);
  });
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      "this is not json\n"
      "\n" +
      std::string(3000, 'x') + "\n" +
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":5}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"ping"})";  // last line without newline
  ASSERT_EQ(::write(in[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(in[1]);
  auto lines = read_all_lines(out[0]);
  serving.join();
  ::close(in[0]);
  ::close(out[0]);

  std::map<std::string, json> by_id;
  int parse_errors = 0, too_long = 0, progress = 0;
  for (const auto& m : lines) {
    if (m.contains("error") && m["error"]["code"] == -32700) ++parse_errors;
    else if (m.contains("error") && m["error"]["code"] == -32600) ++too_long;
    else if (m.value("method", "") == "notifications/progress") ++progress;
    else if (m.contains("id")) by_id[m["id"].dump()] = m;
  }
  EXPECT_EQ(parse_errors, 1);
  EXPECT_EQ(too_long, 1);
  EXPECT_EQ(progress, 3);
  ASSERT_EQ(by_id.count("1"), 1u);
  EXPECT_EQ(by_id["1"]["result"]["protocolVersion"], "2025-11-25");
  ASSERT_EQ(by_id.count("2"), 1u);
  EXPECT_EQ(by_id["2"]["result"]["content"][0]["text"], "5");
  ASSERT_EQ(by_id.count("3"), 1u);
  EXPECT_EQ(by_id["3"]["result"], json::object());
}

}  // namespace
}  // namespace kaisha::mcp
