// MCP wire constants and small pure helpers shared by kaisha's MCP server and
// client: protocol versions, header names, log levels, error codes.
// kaisha speaks the "legacy" (stateful) era: 2025-11-25 first, plus the
// earlier revisions SDK v1 peers still send. 2026-07-28 (stateless, no
// initialize) is not served yet; the transports keep per-request headers
// (MCP-Protocol-Version) so it can be added beside.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kaisha::mcp {

inline constexpr const char* kLatestVersion = "2025-11-25";
// Newest first. A client asking for one of these gets it; any other request
// is answered with kLatestVersion (the client then decides).
const std::vector<std::string>& supported_versions();
bool is_supported_version(std::string_view v);
// The version to answer an initialize request with.
std::string negotiate_version(std::string_view requested);
// What a request without MCP-Protocol-Version is assumed to speak.
inline constexpr const char* kDefaultHeaderVersion = "2025-03-26";

inline constexpr const char* kSessionHeader = "Mcp-Session-Id";
inline constexpr const char* kVersionHeader = "MCP-Protocol-Version";

// MCP-specific JSON-RPC codes.
inline constexpr int kResourceNotFound = -32002;
inline constexpr int kRequestCancelled = -32800;  // used by SDKs for a cancelled request
inline constexpr int kConnectionClosed = -32000;

// syslog levels as MCP names them, lowest first; index = severity rank.
const std::vector<std::string>& log_levels();
// Rank of a level name (debug = 0 ... emergency = 7), nullopt if unknown.
std::optional<int> log_level_rank(std::string_view level);

// Session ids: 32 random hex characters (visible ASCII as the spec requires).
std::string new_session_id();

}  // namespace kaisha::mcp
