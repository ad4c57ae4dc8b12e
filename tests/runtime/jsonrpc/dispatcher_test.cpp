#include "runtime/jsonrpc/dispatcher.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/core/params_check.hpp"

namespace kaisha::jsonrpc {
namespace {

struct Outcome {
  int calls = 0;
  std::optional<json> response;
};

Outcome run(const Dispatcher& d, std::string_view body) {
  Outcome o;
  d.dispatch_body(body, Context{}, [&](std::optional<json> r) {
    ++o.calls;
    o.response = std::move(r);
  });
  return o;
}

Dispatcher make() {
  Dispatcher d;
  d.handle("echo", [](const json& params, Context&) -> Result<json> { return params; });
  d.handle("id", [](const json&, Context& ctx) -> Result<json> { return ctx.id; });
  d.handle("boom",
           [](const json&, Context&) -> Result<json> { throw std::runtime_error("secret path /etc/kaisha/key"); });
  d.handle("missing", [](const json&, Context&) -> Result<json> { return app_error(-32001, "Task not found"); });
  d.handle("word", [](const json&, Context& ctx) -> Result<json> {
    ctx.error_data = json{{"why", "budget"}};
    return Error{"budget", "expense budget exhausted"};
  });
  d.handle(
      "add", [](const json& p, Context&) -> Result<json> { return json(p["a"].get<int>() + p["b"].get<int>()); },
      json::parse(R"({"type":"object","required":["a","b"],
                           "properties":{"a":{"type":"integer"},"b":{"type":"integer"},
                                         "mode":{"enum":["fast","slow"]}}})"));
  return d;
}

TEST(Dispatcher, EchoesIdsOfEveryType) {
  Dispatcher d = make();
  for (const char* id : {"\"s-1\"", "17", "-4", "2.5", "null"}) {
    auto o = run(d, std::string(R"({"jsonrpc":"2.0","method":"id","id":)") + id + "}");
    ASSERT_EQ(o.calls, 1);
    ASSERT_TRUE(o.response);
    EXPECT_EQ((*o.response)["id"], json::parse(id));
    EXPECT_EQ((*o.response)["result"], json::parse(id));
  }
}

TEST(Dispatcher, UnknownMethodIs32601) {
  auto o = run(make(), R"({"jsonrpc":"2.0","id":1,"method":"nope"})");
  EXPECT_EQ((*o.response)["error"]["code"], -32601);
  EXPECT_EQ((*o.response)["error"]["message"], "Method not found: 'nope'");
  EXPECT_EQ((*o.response)["id"], 1);
}

TEST(Dispatcher, ParamsAreValidatedWith32602) {
  Dispatcher d = make();
  auto ok = run(d, R"({"jsonrpc":"2.0","id":1,"method":"add","params":{"a":2,"b":3}})");
  EXPECT_EQ((*ok.response)["result"], 5);
  auto missing = run(d, R"({"jsonrpc":"2.0","id":2,"method":"add","params":{"a":2}})");
  EXPECT_EQ((*missing.response)["error"]["code"], -32602);
  EXPECT_EQ((*missing.response)["error"]["message"], "Invalid params: params: missing required member 'b'");
  auto type = run(d, R"({"jsonrpc":"2.0","id":3,"method":"add","params":{"a":"2","b":3}})");
  EXPECT_EQ((*type.response)["error"]["message"], "Invalid params: params.a: expected integer, got a string");
  auto en = run(d, R"({"jsonrpc":"2.0","id":4,"method":"add","params":{"a":1,"b":3,"mode":"warp"}})");
  EXPECT_EQ((*en.response)["error"]["code"], -32602);
  EXPECT_NE((*en.response)["error"]["message"].get<std::string>().find("\"warp\" is not one of"), std::string::npos);
  auto absent = run(d, R"({"jsonrpc":"2.0","id":5,"method":"add"})");
  EXPECT_EQ((*absent.response)["error"]["code"], -32602);
  auto arr = run(d, R"({"jsonrpc":"2.0","id":6,"method":"add","params":[1,2]})");
  EXPECT_EQ((*arr.response)["error"]["message"], "Invalid params: params: expected object, got an array");
}

TEST(Dispatcher, HandlerExceptionIs32603WithoutInternals) {
  Dispatcher d = make();
  std::string seen;
  d.on_exception([&](const std::string& m, const std::string& what) { seen = m + ": " + what; });
  auto o = run(d, R"({"jsonrpc":"2.0","id":"x","method":"boom"})");
  EXPECT_EQ((*o.response)["error"]["code"], -32603);
  const std::string msg = (*o.response)["error"]["message"];
  EXPECT_EQ(msg, "Internal error while handling 'boom'");
  EXPECT_EQ(seen, "boom: secret path /etc/kaisha/key");
}

TEST(Dispatcher, ApplicationErrorsPassThrough) {
  Dispatcher d = make();
  auto o = run(d, R"({"jsonrpc":"2.0","id":1,"method":"missing"})");
  EXPECT_EQ((*o.response)["error"], json::parse(R"({"code":-32001,"message":"Task not found"})"));
  auto w = run(d, R"({"jsonrpc":"2.0","id":1,"method":"word"})");
  EXPECT_EQ((*w.response)["error"]["code"], -32000);
  EXPECT_EQ((*w.response)["error"]["data"]["why"], "budget");
  EXPECT_EQ(to_rpc_error(Error{"invalid_params", "x"}).code, -32602);
  EXPECT_EQ(to_rpc_error(Error{"budget", "x"}).data["code"], "budget");
  EXPECT_EQ(to_rpc_error(Error{"-32042", "x"}).code, -32042);
}

TEST(Dispatcher, NotificationsGetNoResponseEvenOnError) {
  Dispatcher d = make();
  for (const char* body : {R"({"jsonrpc":"2.0","method":"echo"})", R"({"jsonrpc":"2.0","method":"nope"})",
                           R"({"jsonrpc":"2.0","method":"boom"})", R"({"jsonrpc":"2.0","method":"add","params":{}})"}) {
    auto o = run(d, body);
    EXPECT_EQ(o.calls, 1) << body;
    EXPECT_FALSE(o.response.has_value()) << body;
  }
}

TEST(Dispatcher, BatchAnswersEachRequestInOrder) {
  auto o = run(make(), R"([
      {"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},
      {"jsonrpc":"2.0","method":"echo"},
      {"jsonrpc":"2.0","id":"b","method":"nope"},
      {"foo":"boo"},
      {"jsonrpc":"2.0","id":3,"result":true},
      {"jsonrpc":"2.0","id":4,"method":"add","params":{"a":1,"b":1}}])");
  ASSERT_EQ(o.calls, 1);
  ASSERT_TRUE(o.response && o.response->is_array());
  const json& r = *o.response;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]["result"], json::array({1}));
  EXPECT_EQ(r[1]["error"]["code"], -32601);
  EXPECT_EQ(r[1]["id"], "b");
  EXPECT_EQ(r[2]["error"]["code"], -32600);
  EXPECT_EQ(r[2]["id"], nullptr);
  EXPECT_EQ(r[3]["result"], 2);
}

TEST(Dispatcher, BatchOfNotificationsGivesNothing) {
  auto o = run(make(), R"([{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"nope"}])");
  EXPECT_EQ(o.calls, 1);
  EXPECT_FALSE(o.response.has_value());
}

TEST(Dispatcher, BodyLevelErrorsAreSingleObjects) {
  Dispatcher d = make();
  EXPECT_EQ((*run(d, "[]").response)["error"]["code"], -32600);
  EXPECT_EQ((*run(d, "{oops").response)["error"]["code"], -32700);
  EXPECT_EQ((*run(d, "[1,2]").response).size(), 2u);
  Limits small;
  small.body.max_bytes = 10;
  Dispatcher tiny(small);
  auto o = run(tiny, R"({"jsonrpc":"2.0","id":1,"method":"x"})");
  EXPECT_NE((*o.response)["error"]["message"].get<std::string>().find("exceeds the limit of 10 bytes"),
            std::string::npos);
}

TEST(Dispatcher, IncomingResponsesGoToTheHook) {
  Dispatcher d = make();
  std::vector<json> got;
  d.on_response([&](const IncomingResponse& r) { got.push_back(r.id); });
  auto o = run(d, R"({"jsonrpc":"2.0","id":"srv-1","result":{}})");
  EXPECT_EQ(o.calls, 1);
  EXPECT_FALSE(o.response);
  EXPECT_EQ(got, std::vector<json>{"srv-1"});
}

TEST(Dispatcher, AsyncHandlerAnswersLaterFromAnotherThread) {
  Dispatcher d;
  std::vector<Reply> pending;
  d.handle_async("later", [&](const json& p, Context& ctx, Reply reply) {
    EXPECT_EQ(ctx.method, "later");
    EXPECT_EQ(ctx.meta["progressToken"], 9);
    pending.push_back(reply);
    (void)p;
  });
  Outcome o;
  d.dispatch_body(R"([{"jsonrpc":"2.0","id":1,"method":"later","params":{"_meta":{"progressToken":9}}},
                      {"jsonrpc":"2.0","id":2,"method":"later","params":{"_meta":{"progressToken":9}}}])",
                  Context{}, [&](std::optional<json> r) {
                    ++o.calls;
                    o.response = std::move(r);
                  });
  EXPECT_EQ(o.calls, 0);
  ASSERT_EQ(pending.size(), 2u);
  std::thread t([r = pending[1]] { r(json("second")); });
  t.join();
  EXPECT_EQ(o.calls, 0);
  pending[0].fail(-32002, "Resource not found", json{{"uri", "x://y"}});
  pending[0](json("ignored: second answer"));
  ASSERT_EQ(o.calls, 1);
  EXPECT_EQ((*o.response)[0]["error"]["code"], -32002);
  EXPECT_EQ((*o.response)[0]["error"]["data"]["uri"], "x://y");
  EXPECT_EQ((*o.response)[1]["result"], "second");
  EXPECT_TRUE(pending[0].answered());
}

TEST(Dispatcher, DroppedReplyAnswersInternalError) {
  Dispatcher d;
  d.handle_async("drop", [](const json&, Context&, Reply) {});
  auto o = run(d, R"({"jsonrpc":"2.0","id":1,"method":"drop"})");
  ASSERT_EQ(o.calls, 1);
  EXPECT_EQ((*o.response)["error"]["code"], -32603);
  EXPECT_NE((*o.response)["error"]["message"].get<std::string>().find("dropped"), std::string::npos);
}

TEST(Dispatcher, ContextCarriesTheAdaptersSession) {
  Dispatcher d;
  d.handle("who", [](const json&, Context& ctx) -> Result<json> {
    return json(*std::static_pointer_cast<std::string>(ctx.session));
  });
  Context base;
  base.session = std::make_shared<std::string>("session-42");
  std::optional<json> got;
  d.dispatch(Request{"who", nullptr, 5, false}, base, [&](std::optional<json> r) { got = r; });
  EXPECT_EQ((*got)["result"], "session-42");
}

TEST(ParamsCheck, SubsetKeywords) {
  const json schema = json::parse(R"({"type":"object","additionalProperties":false,
      "properties":{"n":{"type":["integer","null"]},"xs":{"type":"array","items":{"type":"string"}},
                    "k":{"const":"v"}}})");
  EXPECT_TRUE(check_params(schema, json::parse(R"({"n":2.0,"xs":["a"],"k":"v"})")).ok());
  EXPECT_TRUE(check_params(schema, json::parse(R"({"n":null})")).ok());
  EXPECT_EQ(check_params(schema, json::parse(R"({"n":2.5})")).error().message,
            "params.n: expected integer or null, got a number");
  EXPECT_EQ(check_params(schema, json::parse(R"({"xs":["a",1]})")).error().message,
            "params.xs[1]: expected string, got an integer");
  EXPECT_EQ(check_params(schema, json::parse(R"({"zz":1})")).error().message, "params: unexpected member 'zz'");
  EXPECT_FALSE(check_params(schema, json::parse(R"({"k":"w"})")).ok());
  EXPECT_TRUE(check_params(json::parse(R"({"required":"not-a-list","type":"weird"})"), json::object()).ok());
}

}  // namespace
}  // namespace kaisha::jsonrpc
