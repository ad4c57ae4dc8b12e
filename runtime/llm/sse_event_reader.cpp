#include "runtime/llm/sse_event_reader.hpp"

#include <cctype>

namespace kaisha::llm {

void SseEventReader::feed(std::string_view bytes, const std::function<void(const SseMessage&)>& on_event) {
  lines_.feed(bytes, [&](std::string_view l) { line(l, on_event); });
}

void SseEventReader::line(std::string_view l, const std::function<void(const SseMessage&)>& on_event) {
  if (l.empty()) {
    if (has_data_) on_event(cur_);
    cur_ = SseMessage{};
    has_data_ = false;
    return;
  }
  if (l.front() == ':') return;  // comment (heartbeat)
  std::string_view field = l, value;
  if (auto colon = l.find(':'); colon != std::string_view::npos) {
    field = l.substr(0, colon);
    value = l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) cur_.data += '\n';
    cur_.data += value;
    has_data_ = true;
  } else if (field == "event") {
    cur_.event = std::string(value);
  } else if (field == "id") {
    // An id with NUL is ignored, as the SSE spec says.
    if (value.find('\0') == std::string_view::npos) {
      cur_.id = std::string(value);
      last_id_ = cur_.id;
    }
  } else if (field == "retry") {
    bool digits = !value.empty() && value.size() < 10;
    for (char c : value) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) retry_ms_ = std::stoll(std::string(value));
  }
}

}  // namespace kaisha::llm
