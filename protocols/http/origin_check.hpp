// DNS-rebinding protection for servers bound to loopback: a web page from
// another site can make a browser send requests to 127.0.0.1, but it cannot
// make the browser send a loopback `Host`, nor hide its own `Origin`. So a
// loopback server accepts only loopback Host names and, when an Origin is
// present, only loopback origins (or ones configured as allowed). MCP's
// Streamable HTTP transport requires this (invalid Origin => 403).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::protocols {

// The host part of a Host header value or an Origin URL: "localhost:8080" ->
// "localhost", "http://[::1]:3000" -> "[::1]", "null" -> "null".
std::string host_of(std::string_view host_header_or_origin);

// Ok when the request may be served. `loopback_only` is true for a server
// bound to a loopback address: then Host must be a loopback name (an absent
// Host is accepted: HTTP/1.0 clients and raw tools omit it). An Origin, when
// present, must be a loopback origin or be listed in `allowed_origins`
// (compared as given, e.g. "https://app.example"), whatever the binding.
// The Error (code "forbidden") names the offending header and value.
Status check_origin_and_host(std::string_view host_header, std::string_view origin, bool loopback_only,
                             const std::vector<std::string>& allowed_origins);

}  // namespace kaisha::protocols
