#include "runtime/tools/text_diff.hpp"

#include <algorithm>
#include <vector>

namespace kaisha::tools {

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < s.size()) {
    size_t nl = s.find('\n', at);
    if (nl == std::string::npos) nl = s.size();
    out.push_back(s.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

struct Line {
  char op;  // ' ', '-', '+'
  const std::string* text;
};

// The edit script by the longest common subsequence of lines.
std::vector<Line> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b, size_t max_cells) {
  std::vector<Line> out;
  const size_t n = a.size(), m = b.size();
  if (n * m > max_cells) {
    for (const auto& l : a) out.push_back({'-', &l});
    for (const auto& l : b) out.push_back({'+', &l});
    return out;
  }
  // lcs[i][j]: the LCS length of a[i..] and b[j..].
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({' ', &a[i]});
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push_back({'-', &a[i++]});  // removals before additions, as diff(1) shows them
    } else {
      out.push_back({'+', &b[j++]});
    }
  }
  return out;
}

}  // namespace

bool looks_like_text(const std::string& bytes) {
  return bytes.find('\0') == std::string::npos || bytes.find('\0') >= 8192;
}

std::string line_diff(const std::string& before, const std::string& after, size_t context, size_t max_cells) {
  const auto a = lines_of(before), b = lines_of(after);
  const std::vector<Line> script = edit_script(a, b, max_cells);
  // Hunks: changed lines with up to `context` unchanged lines around them.
  std::vector<bool> shown(script.size(), false);
  for (size_t k = 0; k < script.size(); ++k) {
    if (script[k].op == ' ') continue;
    const size_t from = k >= context ? k - context : 0, to = std::min(script.size(), k + context + 1);
    for (size_t x = from; x < to; ++x) shown[x] = true;
  }
  std::string out;
  size_t old_line = 1, new_line = 1;
  for (size_t k = 0; k < script.size();) {
    if (!shown[k]) {
      if (script[k].op != '+') ++old_line;
      if (script[k].op != '-') ++new_line;
      ++k;
      continue;
    }
    size_t end = k, old_n = 0, new_n = 0;
    for (; end < script.size() && shown[end]; ++end) {
      if (script[end].op != '+') ++old_n;
      if (script[end].op != '-') ++new_n;
    }
    out += "@@ -" + std::to_string(old_n ? old_line : old_line - 1) + "," + std::to_string(old_n) + " +" +
           std::to_string(new_n ? new_line : new_line - 1) + "," + std::to_string(new_n) + " @@\n";
    for (; k < end; ++k) {
      out += script[k].op;
      out += *script[k].text;
      out += '\n';
    }
    old_line += old_n;
    new_line += new_n;
  }
  return out;
}

}  // namespace kaisha::tools
