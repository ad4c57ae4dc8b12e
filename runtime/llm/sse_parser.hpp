// Incremental parsers for the two streaming framings: server-sent events
// (OpenAI, Gemini, Anthropic) and newline-delimited JSON (Ollama). Both accept
// bytes split at arbitrary boundaries and handle "\n" and "\r\n" line ends.
// Internal to runtime/llm.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace kaisha::llm {

// Splits a byte stream into lines (without their line ends).
class LineSplitter {
 public:
  void feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line);
  // Bytes after the last line end (an unterminated last line).
  const std::string& pending() const { return buf_; }

 private:
  std::string buf_;
};

struct SseEvent {
  std::string event;  // "" when the event had no "event:" line
  std::string data;   // "data:" lines joined with '\n'
};

// Dispatches an event at each blank line that ends one with data. Comment
// lines (":...") and unknown fields are ignored, as the SSE spec says. An
// event not ended by a blank line when the stream stops is never dispatched.
class SseParser {
 public:
  void feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event);

 private:
  LineSplitter lines_;
  SseEvent cur_;
  bool has_data_ = false;
};

}  // namespace kaisha::llm
