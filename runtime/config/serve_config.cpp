#include "runtime/config/serve_config.hpp"

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"

namespace kaisha::config {

Status read_serve_config(const YAML::Node& n, const YamlReader& r, ServeConfig& s) {
  if (!YamlReader::present(n)) return Status::Ok();
  const std::string p = "serve";
  if (Status st =
          r.expect_section(n, p,
                           {"tls_cert", "tls_key", "behind_tls_proxy", "max_connections", "max_connections_per_client",
                            "max_mcp_sessions_per_client", "sessions", "session_budget", "max_sessions", "max_tasks",
                            "max_running_tasks", "input_timeout_s", "grpc"});
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
  if (Status st = r.optional_int(n, p, "max_mcp_sessions_per_client", s.max_mcp_sessions_per_client, 1, 1'000'000); !st)
    return st;
  std::string sessions = s.shared_session ? "shared" : "per_client";
  if (Status st = r.optional_string(n, p, "sessions", sessions); !st) return st;
  if (sessions != "shared" && sessions != "per_client")
    return r.error_at(n["sessions"], p + ".sessions", "must be per_client or shared, not '" + sessions + "'");
  s.shared_session = sessions == "shared";
  std::string budget = s.per_session_budget ? "per_session" : "shared";
  if (Status st = r.optional_string(n, p, "session_budget", budget); !st) return st;
  if (budget != "shared" && budget != "per_session")
    return r.error_at(n["session_budget"], p + ".session_budget",
                      "must be shared or per_session, not '" + budget + "'");
  s.per_session_budget = budget == "per_session";
  if (Status st = r.optional_int(n, p, "max_sessions", s.max_sessions, 1, 100'000); !st) return st;
  if (Status st = r.optional_int(n, p, "max_tasks", s.max_tasks, 1, 1'000'000); !st) return st;
  if (Status st = r.optional_int(n, p, "max_running_tasks", s.max_running_tasks, 1, 10'000); !st) return st;
  return r.optional_int(n, p, "input_timeout_s", s.input_timeout_s, 0, 7 * 24 * 3600);
}

}  // namespace kaisha::config
