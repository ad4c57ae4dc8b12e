// Lines an editor (an Agent Client Protocol client) can send `kaisha editor`:
// decode_line and the params decoders never throw, an error they answer is a
// JSON-RPC 2.0 error response that serialises, and what they accept
// satisfies what the session logic relies on — whatever bytes the line held.
#include <cstdint>
#include <string_view>

#include "protocols/agent_client/agent_client_wire.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
namespace ac = kaisha::agent_client;
namespace rpc = kaisha::jsonrpc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  ac::Incoming m = ac::decode_line(line);
  if (const auto* err = std::get_if<json>(&m)) {
    check(err->is_object() && err->contains("error") && err->contains("id"), "an error response has error and id");
    check((*err)["error"]["code"].is_number_integer(), "the error code is an integer");
    (void)err->dump();  // throws (a crash here) on invalid UTF-8
    return 0;
  }
  if (std::holds_alternative<rpc::IncomingResponse>(m)) {
    (void)ac::parse_permission_outcome(std::get<rpc::IncomingResponse>(m).result);
    return 0;
  }
  const auto& r = std::get<rpc::Request>(m);
  if (auto p = ac::parse_initialize(r.params)) {
    check(p->protocol_version >= 0 && p->protocol_version <= 65535, "the version is a uint16");
  }
  for (auto p : {ac::parse_new_session(r.params), ac::parse_load_session(r.params)}) {
    if (!p) continue;
    check(!p->cwd.empty() && p->cwd.front() == '/', "an accepted cwd is absolute");
    for (const auto& s : p->mcp_servers) {
      check(!s.name.empty(), "an MCP server has a name");
      check(s.stdio() != !s.url.empty(), "an MCP server is stdio or http");
    }
  }
  if (auto p = ac::parse_prompt(r.params)) {
    check(!p->text.empty(), "an accepted prompt has text");
    (void)json(p->text).dump();
  }
  (void)ac::parse_session_id(r.params);
  (void)rpc::make_result(r.id, ac::session_update("s", ac::text_chunk("agent_message_chunk", "x"))).dump();
  return 0;
}
