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
//     - name: tracker
//       url: https://mcp.example.com/mcp
//       auth:                                  # OAuth 2.1 (all optional)
//         client_id: kaisha-prod               # pre-registered; absent = client ID metadata
//         client_secret_env: TRACKER_SECRET    #   document or dynamic registration
//         grant: client_credentials            # or authorization_code (the default), jwt_bearer,
//                                              #    identity_assertion
//         private_key_file: /etc/kaisha/key.pem  # private_key_jwt instead of a secret (signing_algorithm: ES256|RS256)
//         assertion_file: /var/run/secrets/token # jwt_bearer: the workload identity JWT
//                                              # (identity_assertion: the ID token, with
//                                              #  idp_token_endpoint and idp_client_id)
//         scopes: [mcp:read, mcp:write]        # absent = what the server's challenge asks
//         redirect_uri: http://127.0.0.1:8976/oauth/callback
//         client_metadata_url: https://kaisha.example/client.json
//         token_file: /var/lib/kaisha/mcp-tokens.json
//
// A Streamable HTTP server without a static Authorization (bearer_token_env
// or headers) is authorized with OAuth when it demands it (HTTP 401), with
// or without an `auth:` entry: metadata discovery, then dynamic
// registration unless a client is configured. Tokens are kept in
// auth.token_file (default $XDG_STATE_HOME/kaisha/mcp-oauth-tokens.json),
// never in the journal, readable by the owner only.
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

struct McpAuthConfig {
  std::string grant = "authorization_code";  // or client_credentials, jwt_bearer, identity_assertion
  std::string client_id;
  std::string client_secret;                // from client_secret_env (or client_secret) at load time; never logged
  std::string private_key_pem;              // from private_key_file at load time: private_key_jwt authentication
  std::string signing_algorithm = "ES256";  // of the private_key_jwt assertion (ES256, RS256)
  std::string assertion_file;               // jwt_bearer: the workload identity JWT; identity_assertion: the ID
                                            // token — read at each token request
  std::string idp_token_endpoint;           // identity_assertion: the identity provider's token endpoint
  std::string idp_client_id;                //   and kaisha's client there
  std::string scopes;                       // space-separated; "" = chosen from the server's challenge
  std::string redirect_uri;                 // "" = the client's default loopback URI
  std::string client_metadata_url;          // https URL of a client ID metadata document, or ""
  std::string token_file;                   // "" = the default path
};

struct McpServerConfig {
  std::string name;     // [A-Za-z0-9_-]+, unique
  std::string command;  // stdio: the program (PATH lookup)
  std::vector<std::string> args;
  std::map<std::string, std::string> env;      // added to the inherited environment
  std::string url;                             // Streamable HTTP endpoint
  std::map<std::string, std::string> headers;  // extra HTTP headers
  std::string bearer_token;                    // read from bearer_token_env at load time
  McpAuthConfig auth;                          // OAuth, for an HTTP server without a static token
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
