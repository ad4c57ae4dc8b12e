#include "runtime/config/mcp_server_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <cctype>
#include <set>
#include <tuple>

#include "runtime/config/yaml/yaml_reader.hpp"

namespace kaisha::config {
namespace {

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

Status read_map(const YAML::Node& n, const YamlReader& r, const std::string& path,
                std::map<std::string, std::string>& out) {
  if (!n.IsMap()) return r.error_at(n, path, "expected a map of NAME: value");
  for (const auto& kv : n) {
    auto k = r.read_string(kv.first, path);
    if (!k) return k.error();
    auto v = r.read_string(kv.second, YamlReader::join(path, *k));
    if (!v) return v.error();
    out[*k] = *v;
  }
  return Status::Ok();
}

bool is_http_url(const std::string& u) { return u.rfind("http://", 0) == 0 || u.rfind("https://", 0) == 0; }

Status read_auth(const YAML::Node& n, const YamlReader& r, const std::string& p, McpAuthConfig& a) {
  if (Status st = r.expect_section(n, p,
                                   {"client_id", "client_secret", "client_secret_env", "grant", "scopes",
                                    "redirect_uri", "client_metadata_url", "token_file", "private_key_file",
                                    "signing_algorithm", "assertion_file", "idp_token_endpoint", "idp_client_id"});
      !st)
    return st;
  if (Status st = r.optional_string(n, p, "client_id", a.client_id); !st) return st;
  if (YamlReader::present(n["client_secret"]) && YamlReader::present(n["client_secret_env"]))
    return r.error_at(n, p, "give 'client_secret_env' or 'client_secret', not both");
  if (Status st = r.optional_string(n, p, "client_secret", a.client_secret); !st) return st;
  std::string secret_env;
  if (Status st = r.optional_string(n, p, "client_secret_env", secret_env); !st) return st;
  if (!secret_env.empty()) {
    const char* v = std::getenv(secret_env.c_str());
    if (!v || !*v)
      return r.error_at(n["client_secret_env"], YamlReader::join(p, "client_secret_env"),
                        "the environment variable " + secret_env + " is not set");
    a.client_secret = v;
  }
  if (!a.client_secret.empty() && a.client_id.empty())
    return r.error_at(n, p, "a client secret needs 'client_id' (the client it belongs to)");
  std::string key_file;
  if (Status st = r.optional_string(n, p, "private_key_file", key_file); !st) return st;
  if (!key_file.empty()) {
    if (a.client_id.empty()) return r.error_at(n, p, "a private key needs 'client_id' (the client it belongs to)");
    if (!a.client_secret.empty()) return r.error_at(n, p, "give a client secret or 'private_key_file', not both");
    std::ifstream in(key_file, std::ios::binary);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    a.private_key_pem = text.str();
    if (a.private_key_pem.find("PRIVATE KEY-----") == std::string::npos)
      return r.error_at(n["private_key_file"], YamlReader::join(p, "private_key_file"),
                        "'" + key_file + "' cannot be read or holds no PEM private key");
  }
  if (Status st = r.optional_string(n, p, "signing_algorithm", a.signing_algorithm); !st) return st;
  if (a.signing_algorithm != "ES256" && a.signing_algorithm != "RS256")
    return r.error_at(n["signing_algorithm"], YamlReader::join(p, "signing_algorithm"),
                      "expected ES256 or RS256, got '" + a.signing_algorithm + "'");
  if (Status st = r.optional_string(n, p, "grant", a.grant); !st) return st;
  if (a.grant != "authorization_code" && a.grant != "client_credentials" && a.grant != "jwt_bearer" &&
      a.grant != "identity_assertion")
    return r.error_at(
        n["grant"], YamlReader::join(p, "grant"),
        "expected authorization_code, client_credentials, jwt_bearer or identity_assertion, got '" + a.grant + "'");
  if (a.grant == "client_credentials" && (a.client_id.empty() || (a.client_secret.empty() && key_file.empty())))
    return r.error_at(n, p,
                      "grant: client_credentials needs 'client_id' and 'client_secret_env' (or 'private_key_file')");
  if (Status st = r.optional_string(n, p, "assertion_file", a.assertion_file); !st) return st;
  const bool assertion_grant = a.grant == "jwt_bearer" || a.grant == "identity_assertion";
  if (assertion_grant != !a.assertion_file.empty())
    return r.error_at(n, p,
                      assertion_grant
                          ? "grant: " + a.grant + " needs 'assertion_file' (the JWT or ID token it presents)"
                          : "'assertion_file' applies only with grant: jwt_bearer or identity_assertion");
  if (Status st = r.optional_string(n, p, "idp_token_endpoint", a.idp_token_endpoint); !st) return st;
  if (Status st = r.optional_string(n, p, "idp_client_id", a.idp_client_id); !st) return st;
  if ((a.grant == "identity_assertion") != !a.idp_token_endpoint.empty())
    return r.error_at(
        n, p,
        a.grant == "identity_assertion"
            ? "grant: identity_assertion needs 'idp_token_endpoint' (the identity provider's token endpoint)"
            : "'idp_token_endpoint' applies only with grant: identity_assertion");
  if (!a.idp_token_endpoint.empty() && !is_http_url(a.idp_token_endpoint))
    return r.error_at(n["idp_token_endpoint"], YamlReader::join(p, "idp_token_endpoint"),
                      "expected an http:// or https:// URL, got \"" + a.idp_token_endpoint + "\"");
  if (a.grant == "identity_assertion" && a.client_id.empty())
    return r.error_at(n, p,
                      "grant: identity_assertion needs 'client_id' (kaisha's client at the authorization server)");
  if (const YAML::Node sc = n["scopes"]; YamlReader::present(sc)) {
    std::vector<std::string> list;
    if (sc.IsSequence()) {
      if (Status st = r.optional_strings(n, p, "scopes", list); !st) return st;
    } else {
      std::string one;
      if (Status st = r.optional_string(n, p, "scopes", one); !st) return st;
      list.push_back(one);
    }
    for (const auto& x : list) a.scopes += (a.scopes.empty() ? "" : " ") + x;
  }
  if (Status st = r.optional_string(n, p, "redirect_uri", a.redirect_uri); !st) return st;
  if (!a.redirect_uri.empty() && !is_http_url(a.redirect_uri))
    return r.error_at(n["redirect_uri"], YamlReader::join(p, "redirect_uri"),
                      "expected an http:// or https:// URL, got \"" + a.redirect_uri + "\"");
  if (Status st = r.optional_string(n, p, "client_metadata_url", a.client_metadata_url); !st) return st;
  if (!a.client_metadata_url.empty() && a.client_metadata_url.rfind("https://", 0) != 0)
    return r.error_at(n["client_metadata_url"], YamlReader::join(p, "client_metadata_url"),
                      "a client ID metadata document must be an https:// URL, got \"" + a.client_metadata_url + "\"");
  if (Status st = r.optional_string(n, p, "token_file", a.token_file); !st) return st;
  return Status::Ok();
}

Status read_one(const YAML::Node& n, const YamlReader& r, const std::string& p, McpServerConfig& s) {
  if (Status st = r.expect_map(n, p); !st) return st;
  if (Status st =
          r.check_keys(n, p,
                       {"name", "command", "args", "env", "url", "headers", "bearer_token_env", "tool_prefix",
                        "timeout_ms", "connect_timeout_ms", "restart_base_ms", "restart_max_ms", "stderr_log", "auth"});
      !st)
    return st;
  s.where = r.where(n);
  if (!YamlReader::present(n["name"])) return r.error_at(n, p, "'name' is required");
  if (Status st = r.optional_string(n, p, "name", s.name); !st) return st;
  if (!valid_name(s.name))
    return r.error_at(n["name"], YamlReader::join(p, "name"),
                      "'" + s.name + "' is not a server name (letters, digits, '_' and '-', at most 64)");
  if (Status st = r.optional_string(n, p, "command", s.command); !st) return st;
  if (Status st = r.optional_string(n, p, "url", s.url); !st) return st;
  if (s.command.empty() == s.url.empty())
    return r.error_at(n, p, "give exactly one of 'command' (a stdio server) or 'url' (a Streamable HTTP server)");
  if (!s.url.empty() && s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0)
    return r.error_at(n["url"], YamlReader::join(p, "url"),
                      "expected an http:// or https:// URL, got \"" + s.url + "\"");
  auto only_with = [&](const char* key, bool allowed, const char* with) -> Status {
    if (YamlReader::present(n[key]) && !allowed)
      return r.error_at(n[key], YamlReader::join(p, key),
                        std::string("'") + key + "' applies only with '" + with + "'");
    return Status::Ok();
  };
  for (auto [key, ok, with] :
       {std::tuple{"args", s.stdio(), "command"}, std::tuple{"env", s.stdio(), "command"},
        std::tuple{"stderr_log", s.stdio(), "command"}, std::tuple{"headers", !s.stdio(), "url"},
        std::tuple{"bearer_token_env", !s.stdio(), "url"}, std::tuple{"auth", !s.stdio(), "url"}}) {
    if (Status st = only_with(key, ok, with); !st) return st;
  }
  if (const YAML::Node a = n["args"]; YamlReader::present(a)) {
    const std::string q = YamlReader::join(p, "args");
    if (!a.IsSequence()) return r.error_at(a, q, "expected a list of arguments");
    for (size_t i = 0; i < a.size(); ++i) {
      auto v = r.read_string(a[i], q + "[" + std::to_string(i) + "]");
      if (!v) return v.error();
      s.args.push_back(*v);
    }
  }
  if (const YAML::Node e = n["env"]; YamlReader::present(e)) {
    if (Status st = read_map(e, r, YamlReader::join(p, "env"), s.env); !st) return st;
  }
  if (const YAML::Node h = n["headers"]; YamlReader::present(h)) {
    if (Status st = read_map(h, r, YamlReader::join(p, "headers"), s.headers); !st) return st;
  }
  std::string token_env;
  if (Status st = r.optional_string(n, p, "bearer_token_env", token_env); !st) return st;
  if (!token_env.empty()) {
    const char* v = std::getenv(token_env.c_str());
    if (!v || !*v)
      return r.error_at(n["bearer_token_env"], YamlReader::join(p, "bearer_token_env"),
                        "the environment variable " + token_env + " is not set");
    s.bearer_token = v;
  }
  if (const YAML::Node a = n["auth"]; YamlReader::present(a)) {
    if (!token_env.empty())
      return r.error_at(a, YamlReader::join(p, "auth"),
                        "give 'bearer_token_env' (a static token) or 'auth' (OAuth), not both");
    if (Status st = read_auth(a, r, YamlReader::join(p, "auth"), s.auth); !st) return st;
  }
  s.tool_prefix = s.name + "__";
  if (Status st = r.optional_string(n, p, "tool_prefix", s.tool_prefix); !st) return st;
  if (Status st = r.optional_string(n, p, "stderr_log", s.stderr_log); !st) return st;
  if (Status st = r.optional_int(n, p, "timeout_ms", s.timeout_ms, 1); !st) return st;
  if (Status st = r.optional_int(n, p, "connect_timeout_ms", s.connect_timeout_ms, 1); !st) return st;
  if (Status st = r.optional_int(n, p, "restart_base_ms", s.restart_base_ms, 1); !st) return st;
  if (Status st = r.optional_int(n, p, "restart_max_ms", s.restart_max_ms, 1); !st) return st;
  if (s.restart_max_ms < s.restart_base_ms)
    return r.error_at(n, p,
                      "restart_max_ms (" + std::to_string(s.restart_max_ms) + ") is below restart_base_ms (" +
                          std::to_string(s.restart_base_ms) + ")");
  return Status::Ok();
}

}  // namespace

Status read_mcp_servers(const YAML::Node& node, const YamlReader& r, std::vector<McpServerConfig>& out) {
  if (!YamlReader::present(node)) return Status::Ok();
  if (!node.IsSequence()) return r.error_at(node, "mcp_servers", "expected a list of servers (- name: ...)");
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string p = "mcp_servers[" + std::to_string(i) + "]";
    McpServerConfig s;
    if (Status st = read_one(node[i], r, p, s); !st) return st;
    if (!names.insert(s.name).second)
      return r.error_at(node[i]["name"], YamlReader::join(p, "name"), "a second server named '" + s.name + "'");
    out.push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace kaisha::config
