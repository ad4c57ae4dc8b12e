#include "runtime/pyramid/workspace_index.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/core/utf8.hpp"

namespace kaisha::pyramid {
namespace {

constexpr size_t kNoLimit = static_cast<size_t>(-1);

int depth_of(const std::string& path) { return static_cast<int>(std::count(path.begin(), path.end(), '/')); }

// The first `depth` components of `path`'s directory, with a trailing '/'.
std::string prefix(const std::string& path, int depth) {
  size_t at = 0;
  for (int i = 0; i < depth; ++i) at = path.find('/', at) + 1;
  return path.substr(0, at);
}

}  // namespace

WorkspaceIndex::WorkspaceIndex(TokenCounter count) : count_(std::move(count)) {}

void WorkspaceIndex::describe(const std::string& path, const std::string& description) {
  rendered_.reset();
  std::string& d = files_[path];
  if (!description.empty()) d = utf8::one_line(description, 4096);
}

void WorkspaceIndex::remove(const std::string& path) {
  rendered_.reset();
  files_.erase(path);
}

const std::string* WorkspaceIndex::description(const std::string& path) const {
  auto it = files_.find(path);
  return it == files_.end() ? nullptr : &it->second;
}

// Files deeper than `depth` directories are shown as their directory at
// that depth with a count; descriptions are cut to `description_bytes`.
// Stops with nullopt as soon as the lines exceed `budget` (each line's
// tokens counted on its own: for a counter that rounds up, as the
// estimates do, the sum is never below the whole text's count).
std::optional<std::string> WorkspaceIndex::render_collapsed(int depth, size_t description_bytes, int64_t budget) const {
  std::string out;
  int64_t used = 0;
  auto add = [&](const std::string& line) {
    used += count_(line);
    out += line;
    return used <= budget;
  };
  std::string open_dir;  // the collapsed directory being counted
  size_t in_dir = 0;
  auto close_dir = [&] {
    bool ok =
        open_dir.empty() || add("- " + open_dir + " (" + std::to_string(in_dir) + " files; dir_list to see them)\n");
    open_dir.clear();
    in_dir = 0;
    return ok;
  };
  for (const auto& [path, desc] : files_) {
    if (depth_of(path) > depth) {
      std::string dir = prefix(path, depth + 1);
      if (dir != open_dir) {
        if (!close_dir()) return std::nullopt;
        open_dir = std::move(dir);
      }
      ++in_dir;
      continue;
    }
    if (!close_dir()) return std::nullopt;
    std::string line = "- " + path;
    if (description_bytes > 0 && !desc.empty())
      line += ": " + (description_bytes == kNoLimit ? desc : utf8::shorten(desc, description_bytes));
    if (!add(line + "\n")) return std::nullopt;
  }
  if (!close_dir()) return std::nullopt;
  return out;
}

std::string WorkspaceIndex::render(int64_t budget_tokens) const {
  if (!rendered_ || rendered_->first != budget_tokens) rendered_.emplace(budget_tokens, render_uncached(budget_tokens));
  return rendered_->second;
}

std::string WorkspaceIndex::render_uncached(int64_t budget_tokens) const {
  if (files_.empty() || budget_tokens <= 0) return "";
  int deepest = 0;
  for (const auto& [path, desc] : files_) deepest = std::max(deepest, depth_of(path));
  for (size_t bytes : {kNoLimit, size_t(120), size_t(40), size_t(0)})
    if (auto text = render_collapsed(deepest, bytes, budget_tokens)) return *text;
  for (int depth = deepest - 1; depth >= 0; --depth)
    if (auto text = render_collapsed(depth, 0, budget_tokens)) return *text;
  // Even one line per top-level entry is too much: keep the lines that fit.
  const std::string all = *render_collapsed(0, 0, INT64_MAX);
  std::vector<std::string> lines;
  for (size_t at = 0; at < all.size();) {
    size_t end = all.find('\n', at);
    lines.push_back(all.substr(at, end - at + 1));
    at = end + 1;
  }
  std::string kept;
  int64_t used = 0;
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string tail = "- … " + std::to_string(lines.size() - n) + " more entries (dir_list .)\n";
    const int64_t line = count_(lines[n]);
    if (used + line + count_(tail) > budget_tokens) return used + count_(tail) <= budget_tokens ? kept + tail : kept;
    kept += lines[n];
    used += line;
  }
  return kept;
}

}  // namespace kaisha::pyramid
