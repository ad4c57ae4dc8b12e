// The `mcp_servers:` section: MCP servers whose tools kaisha uses. Each is
// started (stdio: `command` + `args`) or reached (Streamable HTTP: `url`)
// when the company starts; its tools join the tool registry as
// "<tool_prefix><tool>" (default prefix "<name>__"). Employees get them
// through `employee.tools` with an entry "mcp:<name>" or a tool name.
//
//   mcp_servers:
//     - name: everything
//       command: npx
//       args: [-y, "@modelcontextprotocol/server-everything"]
//       env: { LOG_LEVEL: info }
//     - name: search
//       url: http://127.0.0.1:3001/mcp
//       bearer_token_env: SEARCH_MCP_TOKEN     # sent as Authorization: Bearer <token>
//       timeout_ms: 30000
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace YAML {
class Node;
}

namespace kaisha::config {

class YamlReader;

struct McpServerConfig {
  std::string name;                            // [A-Za-z0-9_-]+, unique
  std::string command;                         // stdio: the program (PATH lookup)
  std::vector<std::string> args;
  std::map<std::string, std::string> env;      // added to the inherited environment
  std::string url;                             // Streamable HTTP endpoint
  std::map<std::string, std::string> headers;  // extra HTTP headers
  std::string bearer_token;                    // read from bearer_token_env at load time
  std::string tool_prefix;                     // prefix of its tool names
  int64_t timeout_ms = 60'000;                 // one tools/call
  int64_t connect_timeout_ms = 30'000;         // start + initialize + tools/list
  int64_t restart_base_ms = 500;               // first restart delay, doubled per failure
  int64_t restart_max_ms = 30'000;             // cap of the restart delay
  std::string stderr_log;                      // stdio: where the server's stderr goes ("" = kept in memory)
  std::string where;                           // "<file>:<line>" of the entry, for later errors

  bool stdio() const { return !command.empty(); }
};

// Reads the `mcp_servers` list. Errors name "<file>:<line>: mcp_servers[i].key".
Status read_mcp_servers(const YAML::Node& node, const YamlReader& reader, std::vector<McpServerConfig>& out);

}  // namespace kaisha::config
