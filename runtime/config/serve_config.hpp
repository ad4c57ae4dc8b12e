// The `serve:` section: how `kaisha serve --http` listens. All optional.
//
//   serve:
//     tls_cert: /etc/kaisha/cert.pem     # HTTPS: certificate (chain), PEM
//     tls_key: /etc/kaisha/key.pem       # and its private key, PEM
//     behind_tls_proxy: false            # a TLS-terminating proxy is in front
//     max_connections: 2048              # open at once
//     max_connections_per_client: 256    # from one source address
//     max_mcp_sessions_per_client: 32    # per source address + bearer token
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
  std::string grpc;  // HOST:PORT of A2A's gRPC binding; empty: not served
};

// Reads the `serve` map. Errors name "<file>:<line>: serve.key".
Status read_serve_config(const YAML::Node& node, const YamlReader& reader, ServeConfig& out);

}  // namespace kaisha::config
