// The `serve:` section: how `kaisha serve --http` listens. All optional.
//
//   serve:
//     tls_cert: /etc/kaisha/cert.pem     # HTTPS: certificate (chain), PEM
//     tls_key: /etc/kaisha/key.pem       # and its private key, PEM
//     behind_tls_proxy: false            # a TLS-terminating proxy is in front
//     max_connections: 2048              # open at once
//     max_connections_per_client: 256    # from one source address
//     max_mcp_sessions_per_client: 32    # per source address + bearer token
//     sessions: per_client               # per_client: each A2A context, MCP
//                                        # session and ACP session is its own
//                                        # company session; shared: one for all
//     session_budget: shared             # shared: one budget for every session;
//                                        # per_session: each has the config's budget
//     max_sessions: 64                   # company sessions open at once
//     max_tasks: 256                     # tasks waiting or running, all sessions
//     max_running_tasks: 16              # tasks running at once, all sessions
//     input_timeout_s: 600               # a task asking its user fails after this
//                                        # long without an answer; 0: never asks
//     grpc: 127.0.0.1:50051              # A2A's gRPC binding too (--grpc wins)
#pragma once

#include <cstdint>
#include <string>

#include "runtime/core/result.hpp"

namespace YAML {
class Node;
}

namespace kaisha::config {

class YamlReader;

struct ServeConfig {
  std::string tls_cert;  // both or neither
  std::string tls_key;
  bool behind_tls_proxy = false;
  int64_t max_connections = 2048;
  int64_t max_connections_per_client = 256;
  int64_t max_mcp_sessions_per_client = 32;
  // Many clients at once (actors/company/company_sessions.hpp).
  bool shared_session = false;      // sessions: shared
  bool per_session_budget = false;  // session_budget: per_session
  int64_t max_sessions = 64;
  int64_t max_tasks = 256;
  int64_t max_running_tasks = 16;
  int64_t input_timeout_s = 600;
  std::string grpc;  // HOST:PORT of A2A's gRPC binding; empty: not served
};

// Reads the `serve` map. Errors name "<file>:<line>: serve.key".
Status read_serve_config(const YAML::Node& node, const YamlReader& reader, ServeConfig& out);

}  // namespace kaisha::config
