#include "runtime/hiva/replies/tool_code.hpp"

#include <optional>

#include "runtime/core/ascii_case.hpp"
#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {
namespace {

struct Block {
  std::string lang;
  size_t begin = 0, end = 0;  // the code between the fences
  bool closed = true;
};

bool is_fence(std::string_view line) {
  size_t indent = 0;
  while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
  return line.substr(indent).starts_with("```");
}

std::vector<Block> fenced_blocks(std::string_view text) {
  std::vector<Block> blocks;
  std::optional<Block> open;
  for (size_t at = 0; at < text.size();) {
    size_t eol = text.find('\n', at);
    size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    std::string_view line = text.substr(at, (eol == std::string_view::npos ? text.size() : eol) - at);
    if (is_fence(line)) {
      if (open) {
        open->end = at;
        blocks.push_back(*open);
        open.reset();
      } else {
        Block b;
        b.lang = ascii_lower(reply::trim(reply::trim(line).substr(3)));
        b.begin = next;
        open = b;
      }
    }
    at = next;
  }
  if (open) {
    open->end = text.size();
    open->closed = false;
    blocks.push_back(*open);
  }
  return blocks;
}

bool is_python(const Block& b) { return b.lang.empty() || b.lang == "python" || b.lang == "py" || b.lang == "python3"; }

bool defines_tool(std::string_view code) { return code.find("def tool_function") != std::string_view::npos; }

}  // namespace

Parsed<std::string> parse_tool_code(std::string_view raw) {
  reply::Problems problems("tool code");
  if (std::optional<size_t> bad = reply::invalid_utf8_at(raw)) {
    problems.add(reply::invalid_utf8_finding(raw, *bad) + "; the code is refused");
    return {"", problems.text(), true};
  }
  const std::string text = reply::normalize(raw, problems);
  std::vector<Block> python;
  for (const Block& b : fenced_blocks(text))
    if (is_python(b)) python.push_back(b);
  if (python.empty()) {
    std::string whole(reply::trim(text));
    problems.add(whole.empty() ? "the reply is empty" : "no ```python block; the whole reply is the code");
    return {std::move(whole), problems.text(), true};
  }
  const Block* chosen = &python.front();
  for (const Block& b : python)
    if (defines_tool(std::string_view(text).substr(b.begin, b.end - b.begin))) {
      chosen = &b;
      break;
    }
  if (python.size() > 1)
    problems.add(std::to_string(python.size()) + " code blocks; the " +
                 (defines_tool(std::string_view(text).substr(chosen->begin, chosen->end - chosen->begin))
                      ? "one defining tool_function"
                      : "first") +
                 " is used");
  if (!chosen->closed) problems.add("the code block is not closed (the reply may be cut off)");
  std::string code(std::string_view(text).substr(chosen->begin, chosen->end - chosen->begin));
  while (!code.empty() && reply::is_space(code.back())) code.pop_back();
  bool blank = reply::trim(code).empty();
  if (blank) problems.add("the code block is empty");
  return {std::move(code), problems.text(), blank};
}

}  // namespace kaisha::hiva
