// JSON-RPC request bodies, as any peer of the MCP/A2A endpoints can send them:
// parse_body and the Dispatcher never throw, answer exactly once, and what
// they answer is a JSON-RPC 2.0 response that serialises (valid UTF-8) —
// whatever bytes the body held.
#include <cstdint>
#include <string_view>

#include "runtime/jsonrpc/dispatcher.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
namespace rpc = kaisha::jsonrpc;

namespace {

void check_response(const json& r) {
  check(r.is_object(), "a response is an object");
  check(r.value("jsonrpc", "") == "2.0", "a response carries jsonrpc 2.0");
  check(r.contains("id"), "a response carries an id");
  check(r.contains("result") != r.contains("error"), "a response has exactly one of result/error");
  if (r.contains("error")) {
    check(r["error"].is_object() && r["error"]["code"].is_number_integer() && r["error"]["message"].is_string(),
          "error has an integer code and a string message");
  }
  (void)r.dump();  // throws (a crash here) on invalid UTF-8
}

const rpc::Dispatcher& dispatcher() {
  static const rpc::Dispatcher d = [] {
    rpc::Dispatcher d(rpc::Limits{64 * 1024, 16, 32});
    json schema = json::parse(R"({"type":"object","required":["name"],
      "properties":{"name":{"type":"string"},"mode":{"enum":["a","b"]},
                    "items":{"type":"array","items":{"type":["integer","null"]}}},
      "additionalProperties":false})");
    d.handle(
        "echo", [](const json& p, rpc::Context&) -> kaisha::Result<json> { return p; }, schema);
    d.handle("fail", [](const json&, rpc::Context&) -> kaisha::Result<json> {
      return rpc::app_error(-32001, "Task not found");
    });
    d.handle("throw", [](const json&, rpc::Context&) -> kaisha::Result<json> { throw std::runtime_error("boom"); });
    d.handle_async("later", [](const json& p, rpc::Context&, rpc::Reply reply) { reply(p); });
    d.handle_async("drop", [](const json&, rpc::Context&, rpc::Reply) {});
    return d;
  }();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);

  rpc::ParsedBody parsed = rpc::parse_body(body, rpc::Limits{64 * 1024, 16, 32});
  check(!parsed.messages.empty(), "a body yields at least one message");
  if (!parsed.batch) check(parsed.messages.size() == 1, "a non-batch body yields one message");
  for (const auto& m : parsed.messages) {
    if (const auto* err = std::get_if<json>(&m)) check_response(*err);
    if (const auto* req = std::get_if<rpc::Request>(&m)) {
      check(req->params.is_object() || req->params.is_array() || req->params.is_null(),
            "params is an object, an array or null");
      (void)rpc::make_result(req->id, req->params).dump();
    }
  }

  int calls = 0;
  dispatcher().dispatch_body(body, rpc::Context{}, [&](std::optional<json> r) {
    ++calls;
    if (!r) return;
    if (r->is_array()) {
      check(!r->empty(), "a batch answer is never an empty array");
      for (const auto& e : *r) check_response(e);
    } else {
      check_response(*r);
    }
  });
  check(calls == 1, "done is called exactly once (all handlers answer at once)");
  return 0;
}
