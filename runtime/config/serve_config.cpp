#include "runtime/config/serve_config.hpp"

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml_reader.hpp"

namespace kaisha::config {

Status read_serve_config(const YAML::Node& n, const YamlReader& r, ServeConfig& s) {
  if (!YamlReader::present(n)) return Status::Ok();
  const std::string p = "serve";
  if (Status st = r.expect_section(n, p, {"tls_cert", "tls_key", "behind_tls_proxy", "max_connections",
                                          "max_connections_per_client", "max_mcp_sessions_per_client", "grpc"});
      !st)
    return st;
  if (Status st = r.optional_string(n, p, "tls_cert", s.tls_cert); !st) return st;
  if (Status st = r.optional_string(n, p, "grpc", s.grpc); !st) return st;
  if (Status st = r.optional_string(n, p, "tls_key", s.tls_key); !st) return st;
  if (s.tls_cert.empty() != s.tls_key.empty())
    return r.error_at(n, p, "give both 'tls_cert' and 'tls_key' (HTTPS needs the certificate and its key)");
  if (Status st = r.optional_bool(n, p, "behind_tls_proxy", s.behind_tls_proxy); !st) return st;
  if (Status st = r.optional_int(n, p, "max_connections", s.max_connections, 1, 1'000'000); !st) return st;
  if (Status st = r.optional_int(n, p, "max_connections_per_client", s.max_connections_per_client, 1, 1'000'000); !st)
    return st;
  return r.optional_int(n, p, "max_mcp_sessions_per_client", s.max_mcp_sessions_per_client, 1, 1'000'000);
}

}  // namespace kaisha::config
