// StreamDecoder: turns the bytes of one streamed chat response (SSE or NDJSON,
// depending on the dialect) back into a ChatResponse. Bytes may arrive split
// at any boundary, including inside a UTF-8 sequence or a "data:" prefix; the
// decoder buffers partial lines itself. One decoder per response; not
// thread-safe.
#pragma once

#include <functional>
#include <string_view>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::llm {

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;

  // Consumes the next bytes of the body. Never throws: malformed events are
  // remembered and reported by finish().
  virtual void feed(std::string_view bytes) = 0;

  // Call once after the last byte. Returns the assembled response, or an
  // Error (code "llm") when the stream was cut off before its terminal event,
  // carried an error event, or held an event that was not valid JSON. Usage
  // is marked estimated (and the output estimated) when the stream had none.
  virtual Result<ChatResponse> finish() = 0;

  // Optional: called with each text delta as soon as it is decoded, e.g. to
  // show the answer while it is being written.
  std::function<void(std::string_view)> on_text;
};

}  // namespace kaisha::llm
