// Which era a request speaks, and how a modern request's _meta and headers
// are checked (mcp_revision), plus the header values of SEP-2243
// (mcp_headers).
#include "protocols/mcp/wire/mcp_revision.hpp"

#include <gtest/gtest.h>

#include "protocols/mcp/wire/mcp_headers.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"

namespace kaisha::mcp {
namespace {

jsonrpc::Request request(const std::string& method, json params) {
  return jsonrpc::Request{method, std::move(params), json(1), false};
}

json modern_meta(const std::string& version = kModernVersion) {
  return json{{meta_key::kProtocolVersion, version}, {meta_key::kClientCapabilities, json::object()}};
}

RequestEnvelope http(std::optional<std::string> version, std::optional<std::string> method,
                     std::optional<std::string> name = std::nullopt) {
  RequestEnvelope e;
  e.http = true;
  e.version_header = std::move(version);
  e.method_header = std::move(method);
  e.name_header = std::move(name);
  return e;
}

Rejection rejection(const std::variant<ModernRequest, Rejection>& r) {
  EXPECT_TRUE(std::holds_alternative<Rejection>(r));
  return std::holds_alternative<Rejection>(r) ? std::get<Rejection>(r) : Rejection{};
}

TEST(McpRevision, LegacyClientsKeepTheLegacyEra) {
  // initialize as legacy clients send it, with or without the header
  EXPECT_EQ(era_of(request("initialize", {{"protocolVersion", "2025-11-25"}}), RequestEnvelope{}), Era::kLegacy);
  EXPECT_EQ(era_of(request("initialize", json::object()), http(std::nullopt, std::nullopt)), Era::kLegacy);
  EXPECT_EQ(era_of(request("initialize", json::object()), http("2025-06-18", "initialize")), Era::kLegacy);
  // a request of a session, even one with modern _meta
  RequestEnvelope session = http(kModernVersion, "tools/list");
  session.has_session = true;
  EXPECT_EQ(era_of(request("tools/list", {{"_meta", modern_meta()}}), session), Era::kLegacy);
  // a legacy header, or none, and _meta without the version key
  EXPECT_EQ(era_of(request("tools/call", {{"_meta", {{"progressToken", 1}}}}), http("2025-11-25", "tools/call")),
            Era::kLegacy);
  EXPECT_EQ(era_of(request("ping", nullptr), RequestEnvelope{}), Era::kLegacy);
}

TEST(McpRevision, ModernRequestsAreRecognisedByMetaHeaderOrMethod) {
  EXPECT_EQ(era_of(request("tools/list", {{"_meta", modern_meta()}}), RequestEnvelope{}), Era::kModern);
  EXPECT_EQ(era_of(request("tools/list", json::object()), http(kModernVersion, "tools/list")), Era::kModern);
  // an unknown version is modern too: it is answered with the supported list
  EXPECT_EQ(era_of(request("tools/list", json::object()), http("v999", "tools/list")), Era::kModern);
  EXPECT_EQ(era_of(request("server/discover", nullptr), RequestEnvelope{}), Era::kModern);
  EXPECT_EQ(era_of(request("subscriptions/listen", nullptr), RequestEnvelope{}), Era::kModern);
  // an initialize that speaks 2026-07-28 is told that the method is gone
  EXPECT_EQ(era_of(request("initialize", {{"_meta", modern_meta()}}), http(kModernVersion, "initialize")),
            Era::kModern);
}

TEST(McpRevision, AWellFormedModernRequestIsRead) {
  json meta = modern_meta();
  meta[meta_key::kClientCapabilities] = {{"sampling", json::object()}};
  meta[meta_key::kClientInfo] = {{"name", "c"}, {"version", "1"}};
  meta[meta_key::kLogLevel] = "warning";
  auto r = read_modern_request(request("tools/call", {{"name", "t"}, {"_meta", meta}}),
                               http(kModernVersion, "tools/call", "t"));
  ASSERT_TRUE(std::holds_alternative<ModernRequest>(r));
  const auto& m = std::get<ModernRequest>(r);
  EXPECT_EQ(m.version, kModernVersion);
  EXPECT_TRUE(m.client_capabilities.contains("sampling"));
  EXPECT_EQ(m.client_info["name"], "c");
  EXPECT_EQ(m.min_log_rank, log_level_rank("warning"));
  // stdio has no headers to check, and clientInfo and logLevel are optional
  auto bare = read_modern_request(request("tools/list", {{"_meta", modern_meta()}}), RequestEnvelope{});
  ASSERT_TRUE(std::holds_alternative<ModernRequest>(bare));
  EXPECT_FALSE(std::get<ModernRequest>(bare).min_log_rank);
}

TEST(McpRevision, MissingOrMalformedMetaIsInvalidParamsWith400) {
  const auto env = http(kModernVersion, "server/discover");
  const Rejection none = rejection(read_modern_request(request("server/discover", json::object()), env));
  EXPECT_EQ(none.code, -32602);
  EXPECT_EQ(none.http_status, 400);
  EXPECT_NE(none.message.find("params._meta is missing"), std::string::npos) << none.message;

  json no_caps = modern_meta();
  no_caps.erase(meta_key::kClientCapabilities);
  const Rejection caps = rejection(read_modern_request(request("server/discover", {{"_meta", no_caps}}), env));
  EXPECT_EQ(caps.code, -32602);
  EXPECT_NE(caps.message.find(meta_key::kClientCapabilities), std::string::npos);

  json wrong_type = modern_meta();
  wrong_type[meta_key::kProtocolVersion] = 2026;
  EXPECT_EQ(rejection(read_modern_request(request("server/discover", {{"_meta", wrong_type}}), env)).code, -32602);

  json bad_level = modern_meta();
  bad_level[meta_key::kLogLevel] = "loud";
  const Rejection level = rejection(read_modern_request(request("server/discover", {{"_meta", bad_level}}), env));
  EXPECT_EQ(level.code, -32602);
  EXPECT_NE(level.message.find("\"loud\""), std::string::npos) << level.message;

  EXPECT_EQ(rejection(read_modern_request(request("server/discover", {{"_meta", "x"}}), env)).code, -32602);
}

TEST(McpRevision, HeadersMustMirrorTheBody) {
  const json params{{"name", "echo"}, {"_meta", modern_meta()}};
  // no version header at all
  EXPECT_EQ(
      rejection(read_modern_request(request("tools/call", params), http(std::nullopt, "tools/call", "echo"))).code,
      kHeaderMismatch);
  // version header differs from _meta
  const Rejection version =
      rejection(read_modern_request(request("tools/call", {{"name", "echo"}, {"_meta", modern_meta("v999")}}),
                                    http(kModernVersion, "tools/call", "echo")));
  EXPECT_EQ(version.code, kHeaderMismatch);
  EXPECT_EQ(version.http_status, 400);
  // Mcp-Method missing or different
  EXPECT_EQ(
      rejection(read_modern_request(request("tools/call", params), http(kModernVersion, std::nullopt, "echo"))).code,
      kHeaderMismatch);
  EXPECT_EQ(
      rejection(read_modern_request(request("tools/call", params), http(kModernVersion, "tools/list", "echo"))).code,
      kHeaderMismatch);
  // Mcp-Name missing, different, or broken; base64 decoded before comparing
  EXPECT_EQ(rejection(read_modern_request(request("tools/call", params), http(kModernVersion, "tools/call"))).code,
            kHeaderMismatch);
  const Rejection name =
      rejection(read_modern_request(request("tools/call", params), http(kModernVersion, "tools/call", "other")));
  EXPECT_NE(name.message.find("'other' does not match body value 'echo'"), std::string::npos) << name.message;
  EXPECT_EQ(rejection(read_modern_request(request("tools/call", params),
                                          http(kModernVersion, "tools/call", "=?base64?ZWNo!!==?=")))
                .code,
            kHeaderMismatch);
  auto encoded = read_modern_request(request("tools/call", params),
                                     http(kModernVersion, "tools/call", encode_header_value(" echo")));
  EXPECT_TRUE(std::holds_alternative<Rejection>(encoded));  // " echo" is not "echo"
  auto ok =
      read_modern_request(request("tools/call", params), http(kModernVersion, "tools/call", "=?base64?ZWNobw==?="));
  EXPECT_TRUE(std::holds_alternative<ModernRequest>(ok));
}

TEST(McpRevision, AnUnsupportedVersionListsTheSupportedOnes) {
  const Rejection r = rejection(read_modern_request(request("server/discover", {{"_meta", modern_meta("1999-01-01")}}),
                                                    http("1999-01-01", "server/discover")));
  EXPECT_EQ(r.code, kUnsupportedProtocolVersion);
  EXPECT_EQ(r.http_status, 400);
  EXPECT_EQ(r.data["requested"], "1999-01-01");
  EXPECT_EQ(r.data["supported"], json::array({kModernVersion}));
}

TEST(McpRevision, ModernErrorStatuses) {
  EXPECT_EQ(modern_http_status(-32601), 404);
  EXPECT_EQ(modern_http_status(kHeaderMismatch), 400);
  EXPECT_EQ(modern_http_status(kMissingRequiredClientCapability), 400);
  EXPECT_EQ(modern_http_status(kUnsupportedProtocolVersion), 400);
  EXPECT_EQ(modern_http_status(-32602), 200);  // e.g. an unknown tool: an answer, not a transport failure
}

TEST(McpHeaders, HeaderValuesRoundTripThroughTheBase64Sentinel) {
  EXPECT_EQ(encode_header_value("us-west1"), "us-west1");
  EXPECT_EQ(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
  EXPECT_EQ(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
  EXPECT_EQ(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
  EXPECT_EQ(encode_header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  for (const std::string v : {"us-west1", "Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?="})
    EXPECT_EQ(decode_header_value(encode_header_value(v)), v);
  // strict: bad padding, foreign characters, bytes that are not UTF-8
  EXPECT_FALSE(decode_header_value("=?base64?SGVsbG8?="));
  EXPECT_FALSE(decode_header_value("=?base64?SGVs!!!bG8=?="));
  EXPECT_FALSE(decode_header_value("=?base64?SG=sbG8=?="));
  EXPECT_FALSE(decode_header_value("=?base64?/w==?="));  // 0xFF
  // no prefix or no suffix: a literal value
  EXPECT_EQ(decode_header_value("SGVsbG8="), "SGVsbG8=");
  EXPECT_EQ(decode_header_value("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
}

TEST(McpHeaders, XMcpHeaderAnnotationsFollowTheRules) {
  json schema{
      {"type", "object"},
      {"properties",
       {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
        {"opts", {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}, {"x-mcp-header", "N"}}}}}}}}}};
  auto ok = header_params(schema);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].header, "N");  // properties in key order
  EXPECT_EQ((*ok)[0].path, (std::vector<std::string>{"opts", "n"}));

  auto bad = [](json prop) {
    return header_params(json{{"type", "object"}, {"properties", {{"p", std::move(prop)}}}}).ok();
  };
  EXPECT_FALSE(bad({{"type", "string"}, {"x-mcp-header", ""}}));
  EXPECT_FALSE(bad({{"type", "string"}, {"x-mcp-header", "Has Space"}}));
  EXPECT_FALSE(bad({{"type", "string"}, {"x-mcp-header", "Line\r\nBreak"}}));
  EXPECT_FALSE(bad({{"type", "number"}, {"x-mcp-header", "Num"}}));
  EXPECT_FALSE(bad({{"type", "array"}, {"items", {{"type", "string"}, {"x-mcp-header", "Item"}}}}));
  EXPECT_FALSE(header_params(json{{"type", "object"},
                                  {"properties",
                                   {{"a", {{"type", "string"}, {"x-mcp-header", "Dup"}}},
                                    {"b", {{"type", "string"}, {"x-mcp-header", "dup"}}}}}})
                   .ok());
  EXPECT_FALSE(
      header_params(
          json{{"type", "object"},
               {"anyOf", json::array({json{{"properties", {{"x", {{"type", "string"}, {"x-mcp-header", "X"}}}}}}})}})
          .ok());
}

TEST(McpHeaders, TheServerChecksMcpParamHeadersAgainstTheArguments) {
  json schema = json::parse(R"({"type": "object", "properties": {
      "region": {"type": "string", "x-mcp-header": "Region"},
      "n": {"type": "integer", "x-mcp-header": "N"}}})");
  RequestEnvelope env = http(kModernVersion, "tools/call", "t");
  // a value in the body needs its header
  auto missing = check_param_headers(schema, json{{"region", "eu"}}, env);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->code, kHeaderMismatch);
  EXPECT_NE(missing->message.find("Mcp-Param-Region header is missing"), std::string::npos) << missing->message;
  env.param_headers["region"] = "eu";
  EXPECT_FALSE(check_param_headers(schema, json{{"region", "eu"}}, env));
  EXPECT_TRUE(check_param_headers(schema, json{{"region", "us"}}, env));
  // no value (or null): nothing expected
  EXPECT_FALSE(check_param_headers(schema, json{{"n", nullptr}}, env));
  // integers compare as numbers; encoded values are decoded first
  env.param_headers["n"] = "42.0";
  EXPECT_FALSE(check_param_headers(schema, json{{"region", "eu"}, {"n", 42}}, env));
  env.param_headers["region"] = "=?base64?ZXU=?=";
  EXPECT_FALSE(check_param_headers(schema, json{{"region", "eu"}, {"n", 42}}, env));
  env.param_headers["region"] = "=?base64?ZXU?=";
  EXPECT_TRUE(check_param_headers(schema, json{{"region", "eu"}, {"n", 42}}, env));
}

}  // namespace
}  // namespace kaisha::mcp
