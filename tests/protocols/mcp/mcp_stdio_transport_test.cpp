// MCP over a pair of real pipes: newline-delimited JSON-RPC in and out.
#include "protocols/mcp/server/mcp_stdio_transport.hpp"

#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

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
    if (m.contains("error") && m["error"]["code"] == -32700)
      ++parse_errors;
    else if (m.contains("error") && m["error"]["code"] == -32600)
      ++too_long;
    else if (m.value("method", "") == "notifications/progress")
      ++progress;
    else if (m.contains("id"))
      by_id[m["id"].dump()] = m;
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

// Reads lines from `fd` until one satisfies `pred`; every line read goes to
// `seen`. False when the input ends first.
template <class Pred>
bool read_until(int fd, std::vector<json>& seen, Pred pred) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1) {
    if (c != '\n') {
      line.push_back(c);
      continue;
    }
    seen.push_back(json::parse(line));
    line.clear();
    if (pred(seen.back())) return true;
  }
  return false;
}

// A 2026-07-28 client on the same pipe protocol: no initialize; bad _meta
// is answered with the error and the request's id; a subscription is
// acknowledged, hears a change, and notifications/cancelled ends it.
TEST(McpStdio, ServesTheStatelessRevisionToo) {
  auto backend = std::move(ConformanceFixture::load().value());
  McpServer server(*backend);
  int in[2], out[2];
  ASSERT_EQ(::pipe(in), 0);
  ASSERT_EQ(::pipe(out), 0);
  std::thread serving([&] {
    McpStdioTransport t(server, in[0], out[1]);
    EXPECT_TRUE(t.serve().ok());
    ::close(out[1]);
  });
  auto send = [&](const std::string& line) {
    ASSERT_EQ(::write(in[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
  };
  auto has_id = [](json id) {
    return [id](const json& m) { return m.value("id", json()) == id && !m.contains("method"); };
  };
  const std::string meta =
      R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";
  std::vector<json> seen;
  send(R"({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{)" + meta + "}}\n");
  ASSERT_TRUE(read_until(out[0], seen, has_id(1)));
  EXPECT_EQ(seen.back()["result"]["supportedVersions"][0], "2026-07-28");
  EXPECT_EQ(seen.back()["result"]["resultType"], "complete");
  send(
      R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})"
      "\n");
  ASSERT_TRUE(read_until(out[0], seen, has_id(2)));
  EXPECT_EQ(seen.back()["error"]["code"], -32602);  // no clientCapabilities

  send(
      R"({"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},)" +
      meta + "}}\n");
  auto is = [](const char* method) { return [method](const json& m) { return m.value("method", "") == method; }; };
  ASSERT_TRUE(read_until(out[0], seen, is("notifications/subscriptions/acknowledged")));
  server.broadcast(jsonrpc::make_notification("notifications/tools/list_changed"));
  ASSERT_TRUE(read_until(out[0], seen, is("notifications/tools/list_changed")));
  EXPECT_EQ(seen.back()["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub");

  // Cancelled: the next change reaches nobody, and the listen gets no answer.
  send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}})"
       "\n");
  send(R"({"jsonrpc":"2.0","id":3,"method":"server/discover","params":{)" + meta + "}}\n");
  ASSERT_TRUE(read_until(out[0], seen, has_id(3)));  // the cancellation was read before this
  server.broadcast(jsonrpc::make_notification("notifications/tools/list_changed"));
  server.end_subscriptions();
  ::close(in[1]);
  std::vector<json> rest;
  read_until(out[0], rest, [](const json&) { return false; });
  serving.join();
  ::close(in[0]);
  ::close(out[0]);
  EXPECT_TRUE(rest.empty()) << rest.front();
}

}  // namespace
}  // namespace kaisha::mcp
