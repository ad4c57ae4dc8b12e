// MCP wire constants and small pure helpers shared by kaisha's MCP server and
// client: protocol versions, header names, _meta keys, log levels, error
// codes.
//
// kaisha speaks two eras of MCP side by side:
//   * modern (2026-07-28): stateless; every request carries its version and
//     the client's capabilities in _meta, there is no initialize and no
//     session (mcp_revision.hpp decides which era a request speaks);
//   * legacy (2025-11-25 and the earlier revisions SDK v1 peers still send):
//     an initialize handshake opens a session.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kaisha::mcp {

// The newest modern revision: what kaisha's client asks for first.
inline constexpr const char* kModernVersion = "2026-07-28";
// The newest legacy revision, answered to an initialize that asks for none
// kaisha knows.
inline constexpr const char* kLatestVersion = "2025-11-25";
// The modern revisions kaisha serves per request (newest first).
const std::vector<std::string>& modern_versions();
bool is_modern_version(std::string_view v);
// The legacy revisions, newest first. An initialize asking for one of these
// gets it; any other is answered with kLatestVersion (the client decides).
const std::vector<std::string>& legacy_versions();
bool is_legacy_version(std::string_view v);
// Every revision kaisha speaks, newest first (server/discover lists them).
std::vector<std::string> all_versions();
// The version to answer an initialize request with.
std::string negotiate_version(std::string_view requested);
// What a request without MCP-Protocol-Version is assumed to speak.
inline constexpr const char* kDefaultHeaderVersion = "2025-03-26";

inline constexpr const char* kSessionHeader = "Mcp-Session-Id";
inline constexpr const char* kVersionHeader = "MCP-Protocol-Version";
// Modern requests mirror their method and target into headers (SEP-2243).
inline constexpr const char* kMethodHeader = "Mcp-Method";
inline constexpr const char* kNameHeader = "Mcp-Name";

// _meta keys of the modern revision.
namespace meta_key {
inline constexpr const char* kProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kSubscriptionId = "io.modelcontextprotocol/subscriptionId";
}  // namespace meta_key

// The tasks extension's identifier (capabilities.extensions).
inline constexpr const char* kTasksExtension = "io.modelcontextprotocol/tasks";

// MCP-specific JSON-RPC codes.
inline constexpr int kResourceNotFound = -32002;  // legacy; modern uses -32602
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;
inline constexpr int kRequestCancelled = -32800;  // used by SDKs for a cancelled request
inline constexpr int kConnectionClosed = -32000;

// syslog levels as MCP names them, lowest first; index = severity rank.
const std::vector<std::string>& log_levels();
// Rank of a level name (debug = 0 ... emergency = 7), nullopt if unknown.
std::optional<int> log_level_rank(std::string_view level);

// Session ids: 32 random hex characters (visible ASCII as the spec requires).
std::string new_session_id();

}  // namespace kaisha::mcp
