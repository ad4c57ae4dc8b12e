// Which MCP revision one request speaks, and what a modern (2026-07-28)
// request declares about itself. This is the one place that decides the
// era of a request: the transports call era_of() and, for a modern request,
// read_modern_request(); McpServer then serves it from that era's methods.
//
// The rule (versioning.mdx, "A dual-era server selects its behavior from
// how the client opens"): a request of a legacy session (an Mcp-Session-Id
// on HTTP) is legacy; a request that carries the modern _meta version, names
// a non-legacy MCP-Protocol-Version header, or calls a method only the
// modern era has is modern (an initialize sent that way is told it does not
// exist). Everything else — an initialize as legacy clients send it, and
// what follows it on stdio — is legacy, as it was before 2026-07-28.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>

#include "runtime/core/json.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

enum class Era { kLegacy, kModern };

// What the transport knows of a request besides its body. On stdio `http`
// is false and the header fields are empty.
struct RequestEnvelope {
  bool http = false;
  bool has_session = false;                          // HTTP: an Mcp-Session-Id header; stdio: initialize was answered
  std::optional<std::string> version_header;         // MCP-Protocol-Version, when sent
  std::optional<std::string> method_header;          // Mcp-Method, when sent
  std::optional<std::string> name_header;            // Mcp-Name, when sent (still encoded)
  std::map<std::string, std::string> param_headers;  // Mcp-Param-{name} by lower-cased name (still encoded)
};

Era era_of(const jsonrpc::Request& request, const RequestEnvelope& envelope);

// What a modern request declares in its _meta.
struct ModernRequest {
  std::string version;
  json client_capabilities = json::object();
  json client_info;                 // null when the client sent none (it SHOULD)
  std::optional<int> min_log_rank;  // nullopt: the client asked for no log messages
};

// Why a modern request is refused before any method runs: the HTTP status
// and the JSON-RPC error to answer with (data null when there is none).
struct Rejection {
  int http_status = 400;
  int code = 0;
  std::string message;
  json data;
};

// Checks a modern request's _meta and, on HTTP, its headers (SEP-2575,
// SEP-2243), in the order the specification gives: required _meta fields
// (-32602), headers present and matching the body (-32020), a version kaisha
// serves (-32022). Every message says what is wrong and where. Mcp-Param-*
// headers need the tool's schema: see check_param_headers (mcp_headers.hpp).
std::variant<ModernRequest, Rejection> read_modern_request(const jsonrpc::Request& request,
                                                           const RequestEnvelope& envelope);

// The HTTP status a modern error response travels with: 404 for an unknown
// method, 400 for the protocol errors the revision assigns 400 to, else 200.
int modern_http_status(int code);

}  // namespace kaisha::mcp
