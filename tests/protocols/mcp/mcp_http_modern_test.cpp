// 2026-07-28 over Streamable HTTP on a real HttpServer (127.0.0.1), beside
// a legacy session on the same endpoint.
#include <httplib.h>

#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "tests/protocols/http/loopback_client.hpp"

namespace kaisha::mcp {
namespace {

struct Endpoint {
  std::unique_ptr<ConformanceFixture> backend = std::move(ConformanceFixture::load().value());
  McpServer server{*backend};
  protocols::HttpServer http{[] {
    protocols::HttpServerOptions o;
    o.max_body_bytes = 64 * 1024;
    return o;
  }()};
  // Ten seconds: a quick answer is one JSON object with its own status (an
  // error's 400 or 404); only a machine stalled that long could see it turn
  // into a stream (status 200) here.
  McpHttpTransport transport{server, http, [] {
                               McpHttpOptions o;
                               o.json_answer_wait = std::chrono::seconds(10);
                               return o;
                             }()};
  std::unique_ptr<httplib::Client> client;

  Endpoint() {
    auto port = http.start();
    EXPECT_TRUE(port.ok());
    client = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  ~Endpoint() { http.stop(); }

  static json meta(json caps = json::object()) {
    return json{{meta_key::kProtocolVersion, kModernVersion}, {meta_key::kClientCapabilities, std::move(caps)}};
  }
  static httplib::Headers headers(const std::string& method, const std::string& name = "") {
    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"MCP-Protocol-Version", kModernVersion},
                       {"Mcp-Method", method}};
    if (!name.empty()) h.emplace("Mcp-Name", name);
    return h;
  }
  httplib::Result post(const std::string& method, json params, httplib::Headers h, json id = 1) {
    json body{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
    return client->Post("/mcp", h, body.dump(), "application/json");
  }
};

// The JSON-RPC message of a response, whether one object or an event stream.
json answer_of(const httplib::Result& r) {
  if (r->get_header_value("Content-Type") != "text/event-stream") return json::parse(r->body);
  json last;
  llm::SseParser parser;
  parser.feed(r->body, [&](const llm::SseEvent& e) {
    if (!e.data.empty()) last = json::parse(e.data);
  });
  return last;
}

TEST(McpHttpModern, AStatelessRequestNeedsNoSession) {
  Endpoint e;
  auto r = e.post("tools/call", {{"name", "test_simple_text"}, {"_meta", Endpoint::meta()}},
                  Endpoint::headers("tools/call", "test_simple_text"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->has_header("Mcp-Session-Id"));
  json a = answer_of(r);
  EXPECT_EQ(a["result"]["resultType"], "complete");
  EXPECT_EQ(a["result"]["content"][0]["text"], "This is a simple text response for testing.");
  EXPECT_EQ(e.transport.session_count(), 0u);
}

TEST(McpHttpModern, RefusalsCarryTheRequestIdAndTheirStatus) {
  Endpoint e;
  auto missing = e.post("server/discover", json::object(), Endpoint::headers("server/discover"), "req-1");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);
  json m = json::parse(missing->body);
  EXPECT_EQ(m["id"], "req-1");
  EXPECT_EQ(m["error"]["code"], -32602);

  auto mismatch = e.post("tools/list", {{"_meta", Endpoint::meta()}}, Endpoint::headers("tools/call"), 9);
  EXPECT_EQ(mismatch->status, 400);
  EXPECT_EQ(json::parse(mismatch->body)["error"]["code"], kHeaderMismatch);
  EXPECT_EQ(json::parse(mismatch->body)["id"], 9);

  auto unknown = e.post("no/such", {{"_meta", Endpoint::meta()}}, Endpoint::headers("no/such"), 10);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(json::parse(unknown->body)["error"]["code"], -32601);
  EXPECT_EQ(json::parse(unknown->body)["id"], 10);

  auto caps = e.post("tools/call", {{"name", "test_missing_capability"}, {"_meta", Endpoint::meta()}},
                     Endpoint::headers("tools/call", "test_missing_capability"), 11);
  EXPECT_EQ(caps->status, 400);
  EXPECT_EQ(answer_of(caps)["error"]["code"], kMissingRequiredClientCapability);

  // A legacy request without a session says how to go on, with its id.
  auto legacy =
      e.client->Post("/mcp", {{"Accept", "application/json"}},
                     json{{"jsonrpc", "2.0"}, {"id", 12}, {"method", "tools/list"}}.dump(), "application/json");
  EXPECT_EQ(legacy->status, 400);
  EXPECT_EQ(json::parse(legacy->body)["id"], 12);
}

TEST(McpHttpModern, BadBytesGetAClearErrorNotACrash) {
  Endpoint e;
  // Ill-formed UTF-8 is repaired where it enters (U+FFFD): the tool name no
  // longer names a tool, and the answer says so in valid UTF-8.
  std::string not_utf8 = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text)" +
                         std::string("\xff") + R"(","_meta":)" + Endpoint::meta().dump() + "}}";
  auto r = e.client->Post("/mcp", Endpoint::headers("tools/call", "test_simple_text"), not_utf8, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  json a = answer_of(r);
  EXPECT_EQ(a["id"], 1);
  EXPECT_EQ(a["error"]["code"], kHeaderMismatch);  // the header names the tool without the bad byte
  EXPECT_NE(a["error"]["message"].get<std::string>().find("test_simple_text\xEF\xBF\xBD"), std::string::npos)
      << a["error"]["message"];
  std::string deep(5000, '[');
  auto d = e.client->Post("/mcp", Endpoint::headers("tools/list"), deep, "application/json");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, 400);
  // a Mcp-Name that is not valid base64 or not UTF-8 inside
  auto name = e.post("tools/call", {{"name", "test_simple_text"}, {"_meta", Endpoint::meta()}},
                     Endpoint::headers("tools/call", "=?base64?/w==?="));
  EXPECT_EQ(name->status, 400);
  EXPECT_EQ(json::parse(name->body)["error"]["code"], kHeaderMismatch);
}

TEST(McpHttpModern, GetAndDeleteAreNotAllowedWithoutASession) {
  Endpoint e;
  httplib::Headers h{{"Accept", "text/event-stream"}, {"MCP-Protocol-Version", kModernVersion}};
  EXPECT_EQ(e.client->Get("/mcp", h)->status, 405);
  EXPECT_EQ(e.client->Delete("/mcp", h)->status, 405);
}

TEST(McpHttpModern, ParamHeadersAreCheckedAgainstTheArguments) {
  Endpoint e;
  json params{{"name", "test_custom_headers"}, {"arguments", {{"region", "eu"}}}, {"_meta", Endpoint::meta()}};
  auto without = e.post("tools/call", params, Endpoint::headers("tools/call", "test_custom_headers"));
  EXPECT_EQ(without->status, 400);
  EXPECT_EQ(json::parse(without->body)["error"]["code"], kHeaderMismatch);
  auto h = Endpoint::headers("tools/call", "test_custom_headers");
  h.emplace("Mcp-Param-Region", "eu");
  auto with = e.post("tools/call", params, h);
  EXPECT_EQ(with->status, 200);
  EXPECT_EQ(answer_of(with)["result"]["content"][0]["text"], "called with: {\"region\":\"eu\"}");
}

// Reads from `fd` until `needle` has arrived (or 10 s pass: a failure).
bool read_until(int fd, std::string& seen, const std::string& needle) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (seen.find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::string more = kaisha::testing::read_until_close(fd, std::chrono::milliseconds(100));
    seen += more;
  }
  return true;
}

TEST(McpHttpModern, AListenStreamIsAcknowledgedThenCarriesWhatItAskedFor) {
  Endpoint e;
  int fd = kaisha::testing::connect_from("127.0.0.1", e.http.port());
  ASSERT_GE(fd, 0);
  const std::string body =
      json{{"jsonrpc", "2.0"},
           {"id", "sub-1"},
           {"method", "subscriptions/listen"},
           {"params", {{"notifications", {{"toolsListChanged", true}}}, {"_meta", Endpoint::meta()}}}}
          .dump();
  ASSERT_TRUE(kaisha::testing::send_all(fd,
                                        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: " +
                                            std::string(kModernVersion) +
                                            "\r\nMcp-Method: subscriptions/listen\r\nContent-Length: " +
                                            std::to_string(body.size()) + "\r\n\r\n" + body));
  std::string seen;
  ASSERT_TRUE(read_until(fd, seen, "subscriptions/acknowledged")) << seen;
  // A prompts change is not what this stream asked for; the tools change is.
  e.server.broadcast(jsonrpc::make_notification("notifications/prompts/list_changed"));
  auto trigger = e.post("tools/call", {{"name", "test_trigger_tool_change"}, {"_meta", Endpoint::meta()}},
                        Endpoint::headers("tools/call", "test_trigger_tool_change"));
  EXPECT_EQ(trigger->status, 200);
  ASSERT_TRUE(read_until(fd, seen, "tools/list_changed")) << seen;
  ::close(fd);
  EXPECT_EQ(seen.find("prompts/list_changed"), std::string::npos) << seen;
  EXPECT_NE(seen.find("\"io.modelcontextprotocol/subscriptionId\":\"sub-1\""), std::string::npos) << seen;
  EXPECT_EQ(seen.find("\nid: "), std::string::npos) << "modern streams carry no event ids: " << seen;
}

TEST(McpHttpModern, ALegacySessionBesideKeepsItsBehaviour) {
  Endpoint e;
  auto init = e.client->Post("/mcp", {{"Accept", "application/json"}},
                             json{{"jsonrpc", "2.0"},
                                  {"id", 1},
                                  {"method", "initialize"},
                                  {"params",
                                   {{"protocolVersion", "2025-11-25"},
                                    {"capabilities", json::object()},
                                    {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}
                                 .dump(),
                             "application/json");
  ASSERT_TRUE(init);
  const std::string sid = init->get_header_value("Mcp-Session-Id");
  ASSERT_FALSE(sid.empty());
  EXPECT_EQ(json::parse(init->body)["result"]["protocolVersion"], "2025-11-25");
  auto ping = e.client->Post("/mcp", {{"Accept", "application/json"}, {"Mcp-Session-Id", sid}},
                             json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}}.dump(), "application/json");
  EXPECT_EQ(json::parse(ping->body)["result"], json::object());  // no resultType for a legacy client
  auto read = e.client->Post(
      "/mcp", {{"Accept", "application/json"}, {"Mcp-Session-Id", sid}},
      json{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "resources/read"}, {"params", {{"uri", "test://nope"}}}}.dump(),
      "application/json");
  EXPECT_EQ(json::parse(read->body)["error"]["code"], kResourceNotFound);
}

}  // namespace
}  // namespace kaisha::mcp

namespace kaisha::mcp {
namespace {

// One tool that works until its request is cancelled, and says when it saw it.
class WaitingBackend : public McpBackend {
 public:
  json server_info() const override { return json{{"name", "waiting"}, {"version", "1"}}; }
  std::vector<jsonrpc::CapabilityDescriptor> tools() override {
    jsonrpc::CapabilityDescriptor d;
    d.name = "wait";
    d.input_schema = json{{"type", "object"}};
    return {d};
  }
  Result<json> call_tool(const std::string&, const json&, McpCallContext& ctx) override {
    ctx.progress(0, std::nullopt, "started");  // opens the event stream
    started.set_value();
    for (int i = 0; i < 3000 && !ctx.cancelled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    saw_cancel.set_value(ctx.cancelled());
    return text_result("done");
  }
  std::promise<void> started;
  std::promise<bool> saw_cancel;
};

TEST(McpHttpModern, ClosingTheStreamCancelsTheRequest) {
  WaitingBackend backend;
  McpServer server(backend);
  protocols::HttpServer http{protocols::HttpServerOptions{}};
  McpHttpTransport transport(server, http);
  auto port = http.start();
  ASSERT_TRUE(port.ok());
  int fd = kaisha::testing::connect_from("127.0.0.1", *port);
  ASSERT_GE(fd, 0);
  json meta = Endpoint::meta();
  meta["progressToken"] = "p";
  const std::string body =
      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", {{"name", "wait"}, {"_meta", meta}}}}
          .dump();
  ASSERT_TRUE(kaisha::testing::send_all(fd,
                                        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: " +
                                            std::string(kModernVersion) +
                                            "\r\nMcp-Method: tools/call\r\nMcp-Name: wait\r\nContent-Length: " +
                                            std::to_string(body.size()) + "\r\n\r\n" + body));
  backend.started.get_future().wait();
  std::string seen;
  ASSERT_TRUE(read_until(fd, seen, "notifications/progress")) << seen;
  ::close(fd);
  auto cancelled = backend.saw_cancel.get_future();
  ASSERT_EQ(cancelled.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(cancelled.get());
  http.stop();
}

}  // namespace
}  // namespace kaisha::mcp
