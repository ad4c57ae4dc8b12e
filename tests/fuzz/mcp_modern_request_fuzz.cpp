// What a 2026-07-28 MCP request brings from outside besides its body's
// JSON-RPC frame: its headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*), its _meta, its inputResponses and requestState, a
// subscription filter, and the x-mcp-header annotations of a server's tool
// (the client reads those). Input: four header values, one per line, then
// the request's JSON body. Invariants: nothing throws; every refusal is a
// JSON-RPC error whose message is valid UTF-8 (it goes back to the peer);
// a header value survives encode then decode; a state nobody sealed is
// refused.
#include <cstdint>
#include <string>
#include <string_view>

#include "protocols/mcp/server/input_exchange.hpp"
#include "protocols/mcp/wire/mcp_headers.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/wire/mcp_revision.hpp"
#include "protocols/mcp/server/subscriptions.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;
namespace mcp = kaisha::mcp;

namespace {

std::string_view next_line(std::string_view& text) {
  size_t nl = text.find('\n');
  std::string_view line = text.substr(0, nl);
  text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  return line;
}

std::optional<std::string> header(std::string_view v) {
  if (v.empty()) return std::nullopt;
  return std::string(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  mcp::RequestEnvelope env;
  env.http = true;
  env.version_header = header(next_line(text));
  env.method_header = header(next_line(text));
  env.name_header = header(next_line(text));
  const std::string param(next_line(text));
  if (!param.empty()) env.param_headers["region"] = param;

  // Header values: decoding never throws and yields UTF-8; any UTF-8 text
  // comes back from its encoded form.
  for (const auto& h : {env.version_header, env.method_header, env.name_header})
    if (h) {
      auto d = mcp::decode_header_value(*h);
      if (d) check(valid_utf8(*d), "decoded header values are UTF-8");
      if (valid_utf8(*h))
        check(mcp::decode_header_value(mcp::encode_header_value(*h)) == *h, "encode/decode round trip");
    }

  json body = json::parse(text, nullptr, false);
  if (body.is_discarded() || !body.is_object()) return 0;
  kaisha::jsonrpc::Request req{body.value("method", json()).is_string() ? body["method"].get<std::string>() : "",
                               body.value("params", json()), body.value("id", json()), !body.contains("id")};
  (void)mcp::era_of(req, env);
  auto read = mcp::read_modern_request(req, env);
  if (auto* no = std::get_if<mcp::Rejection>(&read)) {
    check(no->code == -32602 || no->code == mcp::kHeaderMismatch || no->code == mcp::kUnsupportedProtocolVersion,
          "refusals use the revision's codes");
    check(no->http_status == 400, "refusals are 400");
    (void)kaisha::jsonrpc::make_error(req.id, no->code, no->message, no->data).dump();  // throws on bad UTF-8
  }

  // A tool whose "region" argument is mirrored into Mcp-Param-Region.
  const json schema =
      json::parse(R"({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}})");
  const json args = req.params.is_object() ? req.params.value("arguments", json::object()) : json::object();
  if (auto no = mcp::check_param_headers(schema, args, env)) (void)json(no->message).dump();
  // The params' own schema-like content, read as a tool's inputSchema by a client.
  if (req.params.is_object()) {
    auto params = mcp::header_params(req.params);
    if (!params.ok()) (void)json(params.error().message).dump();
  }

  auto exchange = mcp::InputExchange::from_params(req.params);
  if (!exchange.ok()) (void)json(exchange.error().message).dump();
  if (req.params.is_object() && req.params.value("requestState", json()).is_string())
    check(!exchange.ok() || !exchange->state().is_null() || req.params["requestState"] == json(nullptr),
          "a state is either refused or opened");
  auto filter = mcp::SubscriptionFilter::parse(req.params);
  if (filter.ok())
    (void)filter->to_json().dump();
  else
    (void)json(filter.error().message).dump();
  return 0;
}
