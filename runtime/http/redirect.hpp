// Redirects followed by hand, for callers that must see (and check) every
// hop themselves instead of letting libcurl follow them.
#pragma once

#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::http {

// 301, 302, 303, 307 or 308.
bool is_redirect_status(int status);

// The absolute URL a Location header points to, resolved against the URL
// that answered. An Error when it cannot be parsed or is not http(s).
Result<std::string> redirect_target(const std::string& from_url, const std::string& location);

}  // namespace kaisha::http
