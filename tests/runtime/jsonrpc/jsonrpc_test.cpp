#include "runtime/jsonrpc/jsonrpc.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kaisha::jsonrpc {
namespace {

// The error response standing in for the only message of a non-batch body.
json single_error(std::string_view body, const Limits& limits = {}) {
  ParsedBody p = parse_body(body, limits);
  EXPECT_FALSE(p.batch);
  EXPECT_EQ(p.messages.size(), 1u);
  const json* e = std::get_if<json>(&p.messages.front());
  EXPECT_NE(e, nullptr) << body;
  return e ? *e : json();
}

TEST(JsonRpcParse, ParseErrorGivesLineAndColumn) {
  json e = single_error("{\"jsonrpc\": \"2.0\",\n \"method\": foo}");
  EXPECT_EQ(e["id"], nullptr);
  EXPECT_EQ(e["error"]["code"], -32700);
  const std::string msg = e["error"]["message"];
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("column 13"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
  EXPECT_EQ(e["error"]["data"]["line"], 2);
}

TEST(JsonRpcParse, EmptyAndTruncatedBodiesAreParseErrors) {
  EXPECT_EQ(single_error("")["error"]["code"], -32700);
  EXPECT_EQ(single_error("[{\"jsonrpc\":\"2.0\",\"method\":\"a\"")["error"]["code"], -32700);
  EXPECT_EQ(single_error("\xff\xfe")["error"]["code"], -32700);
}

// The parser's message quotes the bytes it stopped at, cut anywhere: an
// ill-formed byte, or half of a valid "é". The error response must still
// serialise (json::dump throws on invalid UTF-8), with the bytes shown as \xNN.
TEST(JsonRpcParse, ParseErrorQuotingNonAsciiBytesIsValidJsonText) {
  for (std::string body : {std::string("[\xff]"), std::string("[1,\xc3\xa9]"),
                           std::string("{\"jsonrpc\":\"2.0\",\"method\":\"caf\xc3"), std::string("tru\xe2\x82\xac")}) {
    json e = single_error(body);
    EXPECT_EQ(e["error"]["code"], -32700) << body;
    std::string wire;
    EXPECT_NO_THROW(wire = e.dump()) << body;
    EXPECT_NE(e["error"]["message"].get<std::string>().find("\\x"), std::string::npos) << wire;
  }
}

// Ill-formed UTF-8 inside a string is repaired where the body enters, not
// a parse error: the request goes through with U+FFFD in its place.
TEST(JsonRpcParse, IllFormedUtf8InAStringBecomesReplacementCharacters) {
  ParsedBody p = parse_body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"text\":\"\xe6\x97 \xff\"}}");
  ASSERT_EQ(p.messages.size(), 1u);
  auto* r = std::get_if<Request>(&p.messages[0]);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->params["text"], "\xef\xbf\xbd \xef\xbf\xbd");
}

TEST(JsonRpcParse, NumberBeyondADoubleIsAParseError) {
  json e = single_error(R"({"jsonrpc":"2.0","id":1e400,"method":"m"})");
  EXPECT_EQ(e["error"]["code"], -32700);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("number overflow parsing '1e400'"), std::string::npos)
      << e.dump();
}

TEST(JsonRpcParse, ValidRequestKeepsIdAndParams) {
  ParsedBody p = parse_body(R"({"jsonrpc":"2.0","id":"abc","method":"tools/list","params":{"cursor":"x"}})");
  ASSERT_EQ(p.messages.size(), 1u);
  auto* r = std::get_if<Request>(&p.messages[0]);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->method, "tools/list");
  EXPECT_EQ(r->id, "abc");
  EXPECT_FALSE(r->notification);
  EXPECT_EQ(r->params["cursor"], "x");
}

TEST(JsonRpcParse, IdsOfEveryAllowedTypeAreKept) {
  auto id_of = [](std::string_view body) {
    ParsedBody p = parse_body(body);
    auto* r = std::get_if<Request>(&p.messages.at(0));
    EXPECT_NE(r, nullptr) << body;
    return r ? r->id : json("missing");
  };
  EXPECT_EQ(id_of(R"({"jsonrpc":"2.0","id":7,"method":"m"})"), 7);
  EXPECT_EQ(id_of(R"({"jsonrpc":"2.0","id":-3,"method":"m"})"), -3);
  EXPECT_EQ(id_of(R"({"jsonrpc":"2.0","id":1.5,"method":"m"})"), 1.5);
  EXPECT_EQ(id_of(R"({"jsonrpc":"2.0","id":"7","method":"m"})"), "7");
  EXPECT_EQ(id_of(R"({"jsonrpc":"2.0","id":null,"method":"m"})"), nullptr);
  // A null id is a request, not a notification.
  auto p = parse_body(R"({"jsonrpc":"2.0","id":null,"method":"m"})");
  EXPECT_FALSE(std::get<Request>(p.messages[0]).notification);
  auto n = parse_body(R"({"jsonrpc":"2.0","method":"m"})");
  EXPECT_TRUE(std::get<Request>(n.messages[0]).notification);
}

struct InvalidCase {
  const char* body;
  json id;
  const char* says;
};

TEST(JsonRpcParse, InvalidRequestsSayWhatIsWrong) {
  const InvalidCase cases[] = {
      {R"({"id":1,"method":"m"})", 1, "missing member \"jsonrpc\""},
      {R"({"jsonrpc":"1.0","id":1,"method":"m"})", 1, "\"jsonrpc\" must be exactly \"2.0\""},
      {R"({"jsonrpc":2.0,"id":1,"method":"m"})", 1, "\"jsonrpc\" must be exactly \"2.0\""},
      {R"({"jsonrpc":"2.0","id":1,"method":5})", 1, "\"method\" must be a string, got a number"},
      {R"({"jsonrpc":"2.0","id":"x"})", "x", "missing member \"method\""},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"m"})", nullptr,
       "\"id\" must be a string, a number or null, got an object"},
      {R"({"jsonrpc":"2.0","id":true,"method":"m"})", nullptr, "got a boolean"},
      {R"({"jsonrpc":"2.0","id":[1],"method":"m"})", nullptr, "got an array"},
      {R"({"jsonrpc":"2.0","id":2,"method":"m","params":"bar"})", 2,
       "\"params\" must be an object or an array, got a string"},
      {R"({"jsonrpc":"2.0","id":2,"method":"m","params":null})", 2, "got null"},
      {R"({"jsonrpc":"2.0","id":2,"method":"m","params":3})", 2, "got a number"},
      {R"("just a string")", nullptr, "expected a JSON object, got a string"},
      {R"(42)", nullptr, "expected a JSON object"},
      {R"([])", nullptr, "empty batch"},
  };
  for (const auto& c : cases) {
    json e = single_error(c.body);
    EXPECT_EQ(e["jsonrpc"], "2.0") << c.body;
    EXPECT_EQ(e["error"]["code"], -32600) << c.body;
    EXPECT_EQ(e["id"], c.id) << c.body;
    const std::string msg = e["error"]["message"];
    EXPECT_NE(msg.find("Invalid Request"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.body << " -> " << msg;
  }
}

TEST(JsonRpcParse, BatchMixesRequestsNotificationsAndInvalidElements) {
  ParsedBody p = parse_body(
      R"([{"jsonrpc":"2.0","id":1,"method":"a"},
          {"jsonrpc":"2.0","method":"note"},
          1,
          {"jsonrpc":"2.0","id":"r","result":{"ok":true}},
          {"foo":"bar"}])");
  ASSERT_TRUE(p.batch);
  ASSERT_EQ(p.messages.size(), 5u);
  EXPECT_EQ(std::get<Request>(p.messages[0]).id, 1);
  EXPECT_TRUE(std::get<Request>(p.messages[1]).notification);
  EXPECT_EQ(std::get<json>(p.messages[2])["error"]["code"], -32600);
  EXPECT_EQ(std::get<IncomingResponse>(p.messages[3]).result["ok"], true);
  EXPECT_EQ(std::get<json>(p.messages[4])["error"]["code"], -32600);
}

TEST(JsonRpcParse, IncomingResponsesAreRecognised) {
  auto p = parse_body(R"({"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"Task not found","data":[1]}})");
  auto& r = std::get<IncomingResponse>(p.messages[0]);
  EXPECT_EQ(r.id, 4);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->code, -32001);
  EXPECT_EQ(r.error->data, json::array({1}));
  json bad = single_error(R"({"jsonrpc":"2.0","id":4,"error":{"code":"x","message":"m"}})");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("error.code"), std::string::npos);
  json both = single_error(R"({"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":"m"}})");
  EXPECT_EQ(both["error"]["code"], -32600);
}

TEST(JsonRpcParse, SizeLimitGivesAClearError) {
  Limits limits;
  limits.body.max_bytes = 64;
  std::string body = R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"text":")" + std::string(100, 'x') + "\"}}";
  json e = single_error(body, limits);
  EXPECT_EQ(e["error"]["code"], -32600);
  const std::string msg = e["error"]["message"];
  EXPECT_NE(msg.find("exceeds the limit of 64 bytes"), std::string::npos) << msg;
  EXPECT_EQ(e["error"]["data"]["size"], body.size());

  Status s = check_body_size(65, 64);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "too_large");
  EXPECT_TRUE(check_body_size(64, 64).ok());
}

TEST(JsonRpcParse, DeepNestingIsRefusedNotRecursed) {
  std::string body(1'000'000, '[');
  json e = single_error(body);
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("nesting deeper than 128"), std::string::npos);
  // Brackets inside strings do not count.
  std::string quoted = R"({"jsonrpc":"2.0","id":1,"method":"m","params":[")" + std::string(500, '[') + "\"]}";
  EXPECT_TRUE(std::holds_alternative<Request>(parse_body(quoted).messages.at(0)));
}

TEST(JsonRpcParse, OversizedBatchIsRefused) {
  Limits limits;
  limits.max_batch = 2;
  json e = single_error(
      R"([{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"a"}])", limits);
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("batch of 3"), std::string::npos);
}

TEST(JsonRpcBuild, BuildersProduceSpecShapes) {
  EXPECT_EQ(make_result("a", json{{"x", 1}}), json::parse(R"({"jsonrpc":"2.0","id":"a","result":{"x":1}})"));
  EXPECT_EQ(make_error(3, -32601, "Method not found"),
            json::parse(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}})"));
  EXPECT_EQ(make_error(nullptr, -32000, "m", json{{"k", 1}})["error"]["data"]["k"], 1);
  EXPECT_EQ(make_request(1, "ping"), json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"));
  EXPECT_EQ(make_notification("notifications/initialized", json::object())["params"], json::object());
  EXPECT_FALSE(make_notification("x").contains("id"));
  EXPECT_EQ(standard_message(-32602), "Invalid params");
  EXPECT_EQ(standard_message(-32001), "");
}

TEST(JsonRpcBuild, JoinResponses) {
  EXPECT_FALSE(join_responses(true, {}).has_value());
  EXPECT_FALSE(join_responses(false, {}).has_value());
  EXPECT_TRUE(join_responses(false, {json(1)})->is_number());
  EXPECT_TRUE(join_responses(true, {json(1)})->is_array());
}

}  // namespace
}  // namespace kaisha::jsonrpc
