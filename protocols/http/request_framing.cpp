#include "protocols/http/request_framing.hpp"

#include <string>

namespace kaisha::protocols {

Status check_request_framing(std::string_view content_length, std::string_view transfer_encoding,
                             size_t max_body_bytes) {
  if (!transfer_encoding.empty())
    return Error{"length_required",
                 "request bodies with Transfer-Encoding are not accepted; send the body with a "
                 "Content-Length (at most " +
                     std::to_string(max_body_bytes) + " bytes)"};
  if (content_length.empty()) return Status::Ok();
  const std::string shown(content_length.substr(0, 40));
  unsigned long long n = 0;
  for (char c : content_length) {
    if (c < '0' || c > '9')
      return Error{"bad_request", "Content-Length must be a non-negative whole number of bytes, got '" + shown + "'"};
    if (n > (~0ull - 9) / 10) {
      n = ~0ull;  // saturate: far over any limit
      continue;
    }
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  if (n > max_body_bytes)
    return Error{"too_large", "request body of " + shown + " bytes exceeds the limit of " +
                                  std::to_string(max_body_bytes) + " bytes"};
  return Status::Ok();
}

}  // namespace kaisha::protocols
