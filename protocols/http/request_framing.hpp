// The framing of a request body, checked from its headers before any of the
// body is read: a Content-Length that is not a plain non-negative decimal
// (cpp-httplib reads "-1" as 2^64-1 and then tries to skip that many bytes)
// or one over the limit is refused at once, and so is a chunked body
// (Transfer-Encoding): cpp-httplib reads those whole whatever their size,
// and JSON clients send a Content-Length anyway.
#pragma once

#include <cstddef>
#include <string_view>

#include "runtime/core/result.hpp"

namespace kaisha::protocols {

// Ok, or an Error whose code is "bad_request" (answer 400), "too_large"
// (413) or "length_required" (411) and whose message says what was wrong.
// Empty strings stand for absent headers.
Status check_request_framing(std::string_view content_length, std::string_view transfer_encoding,
                             size_t max_body_bytes);

}  // namespace kaisha::protocols
