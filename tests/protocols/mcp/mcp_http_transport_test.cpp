// MCP Streamable HTTP over a real HttpServer on 127.0.0.1, driven with
// cpp-httplib's client.
#include "protocols/mcp/server/mcp_http_transport.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "tests/protocols/http/loopback_client.hpp"

namespace kaisha::mcp {
namespace {

struct Fixture {
  std::unique_ptr<ConformanceFixture> backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{[] {
    protocols::HttpServerOptions o;
    o.max_body_bytes = 64 * 1024;
    o.keep_alive_timeout_ms = 1000;
    return o;
  }()};
  McpHttpTransport transport;
  std::unique_ptr<httplib::Client> client;

  // Streams every answer the client accepts a stream for, unless told otherwise:
  // most tests here look at the stream.
  explicit Fixture(std::chrono::milliseconds json_answer_wait = std::chrono::milliseconds(0))
      : transport(server, http, [&] {
          McpHttpOptions o;
          o.json_answer_wait = json_answer_wait;
          return o;
        }()) {
    auto port = http.start();
    EXPECT_TRUE(port.ok());
    client = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  ~Fixture() { http.stop(); }

  httplib::Result post(const json& body, httplib::Headers headers = {}, bool sse = true) {
    headers.emplace("Accept", sse ? "application/json, text/event-stream" : "application/json");
    return client->Post("/mcp", headers, body.dump(), "application/json");
  }

  // initialize + notifications/initialized; returns the session id.
  std::string open(const std::string& version = "2025-11-25") {
    auto r = post(json{{"jsonrpc", "2.0"},
                       {"id", 1},
                       {"method", "initialize"},
                       {"params",
                        {{"protocolVersion", version},
                         {"capabilities", json::object()},
                         {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
    EXPECT_TRUE(r);
    std::string sid = r->get_header_value("Mcp-Session-Id");
    auto n = post(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                  {{"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", version}});
    EXPECT_EQ(n->status, 202);
    return sid;
  }
};

// The JSON-RPC messages of an SSE body, in order (priming events have no data).
std::vector<json> sse_messages(const std::string& body) {
  std::vector<json> out;
  llm::SseParser parser;
  parser.feed(body, [&](const llm::SseEvent& e) {
    if (!e.data.empty()) out.push_back(json::parse(e.data));
  });
  return out;
}

TEST(McpHttp, InitializeOpensASessionAndAnswersOverSse) {
  Fixture f;
  auto r = f.post(json{{"jsonrpc", "2.0"},
                       {"id", 1},
                       {"method", "initialize"},
                       {"params",
                        {{"protocolVersion", "2025-11-25"},
                         {"capabilities", json::object()},
                         {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  std::string sid = r->get_header_value("Mcp-Session-Id");
  EXPECT_EQ(sid.size(), 32u);
  EXPECT_NE(r->body.find("id: s1:0\ndata: \n\n"), std::string::npos) << r->body;  // priming event
  auto msgs = sse_messages(r->body);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0]["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(f.transport.session_count(), 1u);
}

// Ten seconds: the fixture's tool answers at once, so only a machine stalled
// that long could see a stream here.
TEST(McpHttp, AQuickResponseAloneIsOneJsonObjectEvenWhenTheClientAcceptsAStream) {
  Fixture f(std::chrono::seconds(10));
  std::string sid = f.open();
  for (int i = 0; i < 3; ++i) {
    auto r = f.post(
        json{{"jsonrpc", "2.0"}, {"id", 10 + i}, {"method", "tools/call"}, {"params", {{"name", "test_simple_text"}}}},
        {{"Mcp-Session-Id", sid}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
    json body = json::parse(r->body);
    EXPECT_EQ(body["id"], 10 + i);
    EXPECT_EQ(body["result"]["content"][0]["text"], "This is a simple text response for testing.");
  }
}

// A notification before the response turns the answer into a stream, with
// the held notification first, however long the server would have waited.
TEST(McpHttp, ANotificationBeforeTheResponseMakesTheAnswerAStream) {
  Fixture f(std::chrono::seconds(10));
  std::string sid = f.open();
  auto r = f.post(json{{"jsonrpc", "2.0"},
                       {"id", 3},
                       {"method", "tools/call"},
                       {"params", {{"name", "test_tool_with_progress"}, {"_meta", {{"progressToken", "p"}}}}}},
                  {{"Mcp-Session-Id", sid}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  auto msgs = sse_messages(r->body);
  ASSERT_EQ(msgs.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(msgs[i]["method"], "notifications/progress");
  EXPECT_EQ(msgs[3]["id"], 3);
}

TEST(McpHttp, JsonResponseWhenTheClientDoesNotAcceptSse) {
  Fixture f;
  std::string sid = f.open();
  auto r =
      f.post(json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", "test_simple_text"}}}},
             {{"Mcp-Session-Id", sid}}, false);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(json::parse(r->body)["result"]["content"][0]["text"], "This is a simple text response for testing.");
}

TEST(McpHttp, ProgressNotificationsPrecedeTheResponseOnTheStream) {
  Fixture f;
  std::string sid = f.open();
  auto r = f.post(json{{"jsonrpc", "2.0"},
                       {"id", 3},
                       {"method", "tools/call"},
                       {"params", {{"name", "test_tool_with_progress"}, {"_meta", {{"progressToken", "p"}}}}}},
                  {{"Mcp-Session-Id", sid}});
  ASSERT_TRUE(r);
  auto msgs = sse_messages(r->body);
  ASSERT_EQ(msgs.size(), 4u);
  EXPECT_EQ(msgs[0]["method"], "notifications/progress");
  EXPECT_EQ(msgs[3]["id"], 3);
  EXPECT_EQ(msgs[3]["result"]["content"][0]["text"], "p");
}

TEST(McpHttp, SessionAndVersionErrors) {
  Fixture f;
  json ping{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "ping"}};
  auto none = f.post(ping);
  EXPECT_EQ(none->status, 400);
  EXPECT_EQ(json::parse(none->body)["error"]["code"], -32000);
  auto unknown = f.post(ping, {{"Mcp-Session-Id", "nope"}});
  EXPECT_EQ(unknown->status, 404);
  std::string sid = f.open();
  auto bad_version = f.post(ping, {{"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", "1999-01-01"}});
  EXPECT_EQ(bad_version->status, 400);
  EXPECT_NE(bad_version->body.find("1999-01-01"), std::string::npos);
  auto ok = f.post(ping, {{"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(ok->status, 200);
  // DELETE ends it; the id is then unknown.
  auto del = f.client->Delete("/mcp", {{"Mcp-Session-Id", sid}});
  EXPECT_EQ(del->status, 200);
  EXPECT_EQ(f.post(ping, {{"Mcp-Session-Id", sid}})->status, 404);
}

TEST(McpHttp, MalformedAndOversizedBodies) {
  Fixture f;
  std::string sid = f.open();
  auto bad = f.client->Post("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "application/json, text/event-stream"}},
                            "{\"jsonrpc\":", "application/json");
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"]["code"], -32700);
  auto wrong_type = f.client->Post("/mcp", {{"Mcp-Session-Id", sid}}, "hi", "text/plain");
  EXPECT_EQ(wrong_type->status, 415);
  auto big = f.client->Post("/mcp", {{"Mcp-Session-Id", sid}}, std::string(100 * 1024, ' '), "application/json");
  EXPECT_EQ(big->status, 413);
}

TEST(McpHttp, ForeignHostOrOriginIsForbidden) {
  Fixture f;
  json init{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-11-25"}}}};
  auto host = f.post(init, {{"Host", "evil.example"}});
  EXPECT_EQ(host->status, 403);
  auto origin = f.post(init, {{"Origin", "http://evil.example"}});
  EXPECT_EQ(origin->status, 403);
  auto local = f.post(init, {{"Origin", "http://localhost:1234"}});
  EXPECT_EQ(local->status, 200);
}

TEST(McpHttp, GetStreamCarriesUnrelatedNotificationsAndResumes) {
  Fixture f;
  std::string sid = f.open();
  std::promise<void> got;
  std::string seen;
  std::thread reader([&] {
    httplib::Client c("127.0.0.1", f.http.port());
    bool done = false;
    c.Get("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "text/event-stream"}}, [&](const char* data, size_t n) {
      seen.append(data, n);
      if (!done && seen.find("list_changed") != std::string::npos) {
        done = true;
        got.set_value();
        return false;
      }
      return true;
    });
  });
  // Until the GET stream is attached, broadcasts have nowhere to go.
  auto fut = got.get_future();
  while (fut.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
    f.server.broadcast(jsonrpc::make_notification("notifications/tools/list_changed"));
  reader.join();
  EXPECT_NE(seen.find("\"method\":\"notifications/tools/list_changed\""), std::string::npos);

  // A POST stream that was answered can be replayed from its priming id.
  auto r = f.post(json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "ping"}}, {{"Mcp-Session-Id", sid}});
  auto first_id = r->body.substr(r->body.find("id: ") + 4);
  first_id = first_id.substr(0, first_id.find('\n'));
  auto replay =
      f.client->Get("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "text/event-stream"}, {"Last-Event-ID", first_id}});
  ASSERT_TRUE(replay);
  auto msgs = sse_messages(replay->body);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(msgs[0]["id"], 5);
}

TEST(McpHttp, NotificationsAndResponsesGet202) {
  Fixture f;
  std::string sid = f.open();
  auto n = f.post(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 77}}}},
                  {{"Mcp-Session-Id", sid}});
  EXPECT_EQ(n->status, 202);
  EXPECT_TRUE(n->body.empty());
  auto resp = f.post(json{{"jsonrpc", "2.0"}, {"id", "x"}, {"result", json::object()}}, {{"Mcp-Session-Id", sid}});
  EXPECT_EQ(resp->status, 202);
}

TEST(McpHttp, ADeeplyNestedBodyGets400AndTheServerKeepsAnswering) {
  Fixture f;
  const std::string deep = std::string(30000, '{') + std::string(30000, '}');
  auto r = f.client->Post("/mcp", {{"Accept", "application/json, text/event-stream"}},
                          R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":)" + deep + "}}",
                          "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  json e = json::parse(r->body);
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("nesting deeper than 128 levels"), std::string::npos);
  EXPECT_EQ(f.transport.session_count(), 0u);
  EXPECT_FALSE(f.open().empty());
}

// One raw `initialize` (answered as JSON) from `source`: the status and the
// session id (or the response body when refused).
std::pair<int, std::string> initialize_from(const std::string& source, int port) {
  const std::string body = json{{"jsonrpc", "2.0"},
                                {"id", 1},
                                {"method", "initialize"},
                                {"params",
                                 {{"protocolVersion", "2025-11-25"},
                                  {"capabilities", json::object()},
                                  {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}
                               .dump();
  std::string r = kaisha::testing::request_from(source, port, "POST", "/mcp",
                                                "Content-Type: application/json\r\nAccept: application/json\r\n", body);
  const int status = kaisha::testing::status_of(r);
  const std::string marker = "Mcp-Session-Id: ";
  auto at = r.find(marker);
  if (status != 200 || at == std::string::npos) return {status, kaisha::testing::body_of(r)};
  return {status, r.substr(at + marker.size(), r.find("\r\n", at) - at - marker.size())};
}

// A session answers ping (200) while it lives, 404 once evicted.
int ping_status(Fixture& f, const std::string& sid) {
  auto r = f.post(json{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "ping"}},
                  {{"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", "2025-11-25"}}, false);
  return r ? r->status : 0;
}

// One client sending 1,001 initialize calls used to evict every other
// client's session (the oldest went first, whoever owned it). Now a client
// gets its limit of sessions and then a clear 429; the others keep theirs.
TEST(McpHttp, OneClientsInitializeFloodCannotEvictOtherClientsSessions) {
  Fixture f;
  const std::string victim = f.open();
  int opened = 0, refused = 0;
  std::string refusal;
  for (int i = 0; i < 1001; ++i) {
    auto [status, text] = initialize_from("127.0.0.2", f.http.port());
    if (status == 200)
      ++opened;
    else if (status == 429) {
      ++refused;
      refusal = text;
    }
  }
  EXPECT_EQ(opened, 32);  // McpHttpOptions::max_sessions_per_client
  EXPECT_EQ(refused, 1001 - 32);
  json e = json::parse(refusal);
  EXPECT_EQ(e["error"]["code"], -32000);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("127.0.0.2 holds 32 MCP sessions, the limit per client"),
            std::string::npos)
      << refusal;
  EXPECT_EQ(ping_status(f, victim), 200);
  EXPECT_EQ(initialize_from("127.0.0.3", f.http.port()).first, 200);  // another client is served
}

// When the server as a whole is full, the client holding the most sessions
// loses its oldest, not whoever came first.
TEST(McpHttp, AFullServerEvictsFromTheBusiestClient) {
  auto backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{protocols::HttpServerOptions{}};
  McpHttpOptions mo;
  mo.max_sessions = 10;
  McpHttpTransport transport{server, http, mo};
  ASSERT_TRUE(http.start().ok());
  auto victim = initialize_from("127.0.0.1", http.port());
  ASSERT_EQ(victim.first, 200);
  for (int i = 0; i < 30; ++i) ASSERT_EQ(initialize_from("127.0.0.2", http.port()).first, 200) << i;
  EXPECT_EQ(transport.session_count(), 10u);
  httplib::Client c("127.0.0.1", http.port());
  auto r = c.Post("/mcp", {{"Mcp-Session-Id", victim.second}, {"Accept", "application/json"}},
                  json{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "ping"}}.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  http.stop();
}

// Requests answered as event streams run on threads of their own, at most
// max_running_streams at once: one more is refused with 503 before its stream
// opens, while JSON answers go on — and so do the tools the server answers
// at once, which never leave the connection's thread.
TEST(McpHttp, StreamedRequestsPastTheRunningLimitGet503) {
  auto backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{protocols::HttpServerOptions{}};
  McpHttpOptions mo;
  mo.max_running_streams = 1;
  McpHttpTransport transport{server, http, mo};
  ASSERT_TRUE(http.start().ok());
  httplib::Client c("127.0.0.1", http.port());
  auto init = c.Post("/mcp", {{"Accept", "application/json"}},
                     json{{"jsonrpc", "2.0"},
                          {"id", 1},
                          {"method", "initialize"},
                          {"params",
                           {{"protocolVersion", "2025-11-25"},
                            {"capabilities", {{"elicitation", json::object()}}},
                            {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}
                         .dump(),
                     "application/json");
  ASSERT_TRUE(init);
  ASSERT_EQ(init->status, 200) << init->body;
  const std::string sid = init->get_header_value("Mcp-Session-Id");
  c.Post("/mcp", {{"Mcp-Session-Id", sid}}, json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump(),
         "application/json");

  // The one place: a tool that waits for the client's answer to its elicitation.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(http.port()));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const std::string body = json{{"jsonrpc", "2.0"},
                                {"id", 2},
                                {"method", "tools/call"},
                                {"params", {{"name", "test_elicitation"}, {"arguments", {{"message", "Name?"}}}}}}
                               .dump();
  const std::string req =
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Accept: application/json, text/event-stream\r\nMcp-Session-Id: " +
      sid + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  std::string got;
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[4096];
  while (got.find("elicitation/create") == std::string::npos) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  ASSERT_NE(got.find("elicitation/create"), std::string::npos) << got;

  // A tool that may log (so it runs on a request thread).
  const std::string call =
      json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/call"}, {"params", {{"name", "test_tool_with_logging"}}}}
          .dump();
  const std::string quick =
      json{{"jsonrpc", "2.0"}, {"id", 4}, {"method", "tools/call"}, {"params", {{"name", "test_simple_text"}}}}.dump();
  auto at_once = c.Post("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "application/json, text/event-stream"}}, quick,
                        "application/json");
  ASSERT_TRUE(at_once);
  EXPECT_EQ(at_once->status, 200) << at_once->body;
  EXPECT_EQ(at_once->get_header_value("Content-Type"), "application/json");
  EXPECT_NE(at_once->body.find("This is a simple text response for testing."), std::string::npos) << at_once->body;
  auto busy = c.Post("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "application/json, text/event-stream"}}, call,
                     "application/json");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 503);
  EXPECT_NE(busy->body.find("Server busy: 1 requests answered as event streams are running"), std::string::npos)
      << busy->body;
  auto plain = c.Post("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "application/json"}}, call, "application/json");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200) << plain->body;

  // Answered, the tool ends and gives its place back.
  const size_t at =
      got.find("data: {", got.find("elicitation/create") > 300 ? got.find("elicitation/create") - 300 : 0);
  ASSERT_NE(at, std::string::npos) << got;
  const json ask = json::parse(got.substr(at + 6, got.find('\n', at) - at - 6));
  auto answered = c.Post(
      "/mcp", {{"Mcp-Session-Id", sid}},
      json{{"jsonrpc", "2.0"}, {"id", ask["id"]}, {"result", {{"action", "accept"}, {"content", {{"name", "kaisha"}}}}}}
          .dump(),
      "application/json");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->status, 202) << answered->body;
  while (got.find("User response") == std::string::npos) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_NE(got.find("User response"), std::string::npos) << got;
  close(fd);
  std::shared_ptr<httplib::Result> again;
  for (int i = 0; i < 200; ++i) {  // the thread gives its place back just after the answer
    auto r = c.Post("/mcp", {{"Mcp-Session-Id", sid}, {"Accept", "application/json, text/event-stream"}}, call,
                    "application/json");
    if (r && r->status == 200) {
      again = std::make_shared<httplib::Result>(std::move(r));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(again) << "the place was never given back";
  http.stop();
}

}  // namespace
}  // namespace kaisha::mcp
