// Where a protocol server may listen, and with what credential. kaisha's
// HTTP adapters (MCP, A2A, ACP) bind 127.0.0.1 unless told otherwise; any
// other address exposes the company to the network, so it is refused unless
// a bearer token is configured (from config, --token, or $KAISHA_HTTP_TOKEN),
// and then every request must carry `Authorization: Bearer <token>` — over
// TLS (kaisha's own HTTPS, or a TLS-terminating proxy in front), since a
// token sent in clear text off this machine is a token given away.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/result.hpp"

namespace kaisha::protocols {

// The environment variable a bearer token is read from when none is given.
inline constexpr const char* kTokenEnvVar = "KAISHA_HTTP_TOKEN";

// True for names and addresses that only this machine can reach:
// "localhost", 127.0.0.0/8, "::1" (with or without brackets).
bool is_loopback_host(std::string_view host);

// Ok for a loopback host; for any other host Ok only with a non-empty token
// and `tls` (the server speaks HTTPS, or the configuration says a
// TLS-terminating proxy is in front), else an Error (code "bind") that says
// why and how to fix it.
Status check_bind_policy(const std::string& host, const std::string& token, bool tls);

// `configured` when not empty, else $KAISHA_HTTP_TOKEN, else "".
std::string resolve_bearer_token(const std::string& configured);

// Splits "HOST:PORT", "[v6]:PORT" or ":PORT" / "PORT" (host 127.0.0.1).
// The error (code "usage") names the bad part.
struct HostPort {
  std::string host = "127.0.0.1";
  int port = 0;
};
Result<HostPort> parse_host_port(std::string_view text);

// True when `authorization` is "Bearer <token>" for exactly `token`
// (compared in constant time for equal lengths).
bool bearer_matches(std::string_view authorization, std::string_view token);

}  // namespace kaisha::protocols
