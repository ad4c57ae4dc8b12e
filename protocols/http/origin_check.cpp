#include "protocols/http/origin_check.hpp"

#include <algorithm>

#include "protocols/http/bind_policy.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::protocols {

std::string host_of(std::string_view v) {
  if (auto scheme = v.find("://"); scheme != std::string_view::npos) v = v.substr(scheme + 3);
  if (auto slash = v.find('/'); slash != std::string_view::npos) v = v.substr(0, slash);
  if (auto at = v.rfind('@'); at != std::string_view::npos) v = v.substr(at + 1);
  if (!v.empty() && v.front() == '[') {
    auto close = v.find(']');
    return std::string(close == std::string_view::npos ? v : v.substr(0, close + 1));
  }
  if (auto colon = v.find(':'); colon != std::string_view::npos) v = v.substr(0, colon);
  return ascii_lower(v);
}

Status check_origin_and_host(std::string_view host_header, std::string_view origin, bool loopback_only,
                             const std::vector<std::string>& allowed_origins) {
  if (loopback_only && !host_header.empty() && !is_loopback_host(host_of(host_header)))
    return Error{"forbidden", "Host header '" + std::string(host_header) +
                                  "' is not a loopback name; this server only answers requests for "
                                  "localhost/127.0.0.1 (DNS rebinding protection)"};
  if (origin.empty()) return Status::Ok();
  if (std::find(allowed_origins.begin(), allowed_origins.end(), origin) != allowed_origins.end()) return Status::Ok();
  if (is_loopback_host(host_of(origin))) return Status::Ok();
  return Error{"forbidden", "Origin '" + std::string(origin) +
                                "' is not allowed: only loopback origins and configured allowed origins may "
                                "call this server"};
}

}  // namespace kaisha::protocols
