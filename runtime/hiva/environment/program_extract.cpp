#include "runtime/hiva/environment/program_extract.hpp"

#include <optional>
#include <vector>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::hiva {

namespace {

struct Fence {
  char mark = '`';
  size_t length = 0;
  std::string_view info;  // the rest of the opening line
};

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<Fence> fence_of(std::string_view line) {
  size_t indent = 0;
  while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
  if (indent > 3 || indent >= line.size() || (line[indent] != '`' && line[indent] != '~')) return std::nullopt;
  Fence f{line[indent], 0, {}};
  size_t i = indent;
  while (i < line.size() && line[i] == f.mark) ++i;
  f.length = i - indent;
  if (f.length < 3) return std::nullopt;
  f.info = trim_spaces(line.substr(i));
  if (f.mark == '`' && f.info.find('`') != std::string_view::npos) return std::nullopt;  // inline code, not a fence
  return f;
}

bool closes(const Fence& open, std::string_view line) {
  auto f = fence_of(line);
  return f && f->mark == open.mark && f->length >= open.length && f->info.empty();
}

bool python_info(std::string_view info) {
  std::string word = ascii_lower(info.substr(0, info.find_first_of(" \t{")));
  return word == "python" || word == "py" || word == "python3";
}

struct Block {
  bool python = false;
  std::string text;
};

std::vector<Block> fenced_blocks(std::string_view answer) {
  std::vector<Block> blocks;
  std::optional<Fence> open;
  for (size_t start = 0; start < answer.size();) {
    size_t end = answer.find('\n', start);
    std::string_view line = answer.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? answer.size() : end + 1;
    if (!open) {
      if ((open = fence_of(line))) blocks.push_back({python_info(open->info), ""});
    } else if (closes(*open, line)) {
      open.reset();
    } else {
      blocks.back().text.append(line);
      blocks.back().text += '\n';
    }
  }
  return blocks;
}

}  // namespace

std::string extract_program(std::string_view answer) {
  std::vector<Block> blocks = fenced_blocks(answer);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (it->python) return it->text;
  if (!blocks.empty()) return blocks.back().text;
  return std::string(answer);
}

}  // namespace kaisha::hiva
