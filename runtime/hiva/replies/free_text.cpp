#include "runtime/hiva/replies/free_text.hpp"

#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {

Parsed<std::string> parse_free_text(std::string_view raw, std::string_view who) {
  reply::Problems problems(who);
  std::string text = reply::normalize(raw, problems);
  std::string value(reply::trim(text));
  bool empty = value.empty();
  if (empty) problems.add("the reply is empty");
  return {std::move(value), problems.text(), empty};
}

Parsed<std::string> parse_instruction(std::string_view raw, std::string_view fallback) {
  reply::Problems problems("instruction");
  const std::string text = reply::normalize(raw, problems);
  std::string_view t = reply::strip_fence(text);
  for (const std::vector<std::string_view>& label :
       {std::vector<std::string_view>{"instruction"}, std::vector<std::string_view>{"output"},
        std::vector<std::string_view>{"successor", "instruction"}}) {
    size_t start = 0;
    while (start < t.size() && (t[start] == '*' || t[start] == '#' || t[start] == ' ')) ++start;
    std::optional<size_t> end = reply::match_words(t, start, label);
    if (!end) continue;
    std::optional<size_t> value = reply::after_separator(t, *end, false);
    if (value) t = reply::trim(t.substr(*value));
    break;
  }
  t = reply::strip_wrapping(t);
  if (!t.empty()) return {std::string(t), problems.text(), false};
  problems.add("the reply has no instruction; the agent's own instruction is passed on");
  return {std::string(fallback), problems.text(), true};
}

}  // namespace kaisha::hiva
