#include "protocols/http/bind_policy.hpp"

#include <arpa/inet.h>

#include <cstdlib>

namespace kaisha::protocols {

bool is_loopback_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "::1") return true;
  in_addr a{};
  std::string h(host);
  if (inet_pton(AF_INET, h.c_str(), &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
  in6_addr a6{};
  if (inet_pton(AF_INET6, h.c_str(), &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
  return false;
}

Status check_bind_policy(const std::string& host, const std::string& token, bool tls) {
  if (host.empty()) return Error{"bind", "empty listen address (use 127.0.0.1 for local use)"};
  if (is_loopback_host(host)) return Status::Ok();
  if (token.empty())
    return Error{"bind", "refusing to listen on " + host +
                             " without a bearer token: only loopback addresses (127.0.0.1, ::1) are served "
                             "without one; set a token with --token, the config, or $" +
                             std::string(kTokenEnvVar)};
  if (!tls)
    return Error{"bind", "refusing to listen on " + host +
                             " over plain HTTP: the bearer token would cross the network in clear text; serve "
                             "HTTPS (serve.tls_cert and serve.tls_key in the config, or --tls-cert/--tls-key) or, "
                             "when a TLS-terminating proxy is in front, say so (serve.behind_tls_proxy: true or "
                             "--behind-tls-proxy)"};
  return Status::Ok();
}

std::string resolve_bearer_token(const std::string& configured) {
  if (!configured.empty()) return configured;
  const char* env = std::getenv(kTokenEnvVar);
  return env ? std::string(env) : std::string();
}

Result<HostPort> parse_host_port(std::string_view text) {
  HostPort hp;
  std::string_view port_part = text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Error{"usage", "bad address '" + std::string(text) + "': expected [IPv6]:PORT"};
    hp.host = std::string(text.substr(1, close - 1));
    port_part = text.substr(close + 2);
  } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    if (colon > 0) hp.host = std::string(text.substr(0, colon));
    port_part = text.substr(colon + 1);
  }
  if (port_part.empty() || port_part.size() > 5)
    return Error{"usage", "bad address '" + std::string(text) + "': expected HOST:PORT with a port 0-65535"};
  int port = 0;
  for (char c : port_part) {
    if (c < '0' || c > '9')
      return Error{"usage", "bad port '" + std::string(port_part) + "' in '" + std::string(text) + "'"};
    port = port * 10 + (c - '0');
  }
  if (port > 65535) return Error{"usage", "port " + std::to_string(port) + " is out of range (0-65535)"};
  hp.port = port;
  return hp;
}

bool bearer_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kPrefix = "Bearer ";
  if (token.empty() || authorization.size() != kPrefix.size() + token.size()) return false;
  bool prefix_ok = true;
  for (size_t i = 0; i < kPrefix.size(); ++i) {
    char c = authorization[i];
    char p = kPrefix[i];
    if (c != p && !(i < 6 && (c | 0x20) == (p | 0x20))) prefix_ok = false;  // scheme is case-insensitive
  }
  unsigned diff = 0;
  for (size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned char>(authorization[kPrefix.size() + i]) ^ static_cast<unsigned char>(token[i]);
  return prefix_ok && diff == 0;
}

}  // namespace kaisha::protocols
