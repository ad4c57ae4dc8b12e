#include "runtime/llm/sse_parser.hpp"

namespace kaisha::llm {

void LineSplitter::feed(std::string_view bytes, const std::function<void(std::string_view)>& on_line) {
  buf_.append(bytes);
  size_t start = 0;
  for (;;) {
    size_t nl = buf_.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(buf_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line(line);
    start = nl + 1;
  }
  buf_.erase(0, start);
}

void SseParser::feed(std::string_view bytes, const std::function<void(const SseEvent&)>& on_event) {
  lines_.feed(bytes, [&](std::string_view line) {
    if (line.empty()) {
      if (has_data_) on_event(cur_);
      cur_ = SseEvent{};
      has_data_ = false;
      return;
    }
    if (line.front() == ':') return;
    auto colon = line.find(':');
    std::string_view field = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (field == "data") {
      if (has_data_) cur_.data += '\n';
      cur_.data.append(value);
      has_data_ = true;
    } else if (field == "event") {
      cur_.event = std::string(value);
    }
  });
}

}  // namespace kaisha::llm
