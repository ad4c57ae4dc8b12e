// WorkspaceIndex: C_LM, the long-term memory of one task (InfiAgent,
// infiagent.md §3.8 and §10 item 40). Agents pass results as files in the
// task's workspace with a description; the index keeps {path -> description}
// and every agent's prompt shows it, compressed to a token budget, instead
// of the files' contents. Agents read details on demand (dir_list,
// file_read).
//
// render(budget) never exceeds the budget. When the full list does not fit
// it gives up detail in this order: descriptions are shortened, then
// dropped, then the deepest directories are collapsed into one line each
// ("reports/2026/ — 240 files"), up to the top-level ones, and at last the
// remaining lines are cut with a count of what was left out.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kaisha::pyramid {

// Not thread-safe: one task's driver owns it.

// Counts a text's tokens; the strategy passes its model's estimate, tests a
// fake one.
using TokenCounter = std::function<int64_t(std::string_view)>;

class WorkspaceIndex {
 public:
  explicit WorkspaceIndex(TokenCounter count);

  // Records `path` (relative to the task workspace, already checked) with
  // `description`; an empty description keeps an earlier one.
  void describe(const std::string& path, const std::string& description);
  void remove(const std::string& path);
  size_t size() const { return files_.size(); }
  // The description of `path`, or nullptr when the index does not hold it.
  const std::string* description(const std::string& path) const;

  // The index as prompt lines ("- path: description"), at most
  // `budget_tokens` tokens by the counter (summed line by line); "" when
  // the index is empty or not even the shortest line fits. The last
  // rendering is kept until the index changes: every turn of every call
  // shows the same index, so only the first pays for collapsing it.
  std::string render(int64_t budget_tokens) const;

 private:
  std::optional<std::string> render_collapsed(int depth, size_t description_bytes, int64_t budget) const;

  std::string render_uncached(int64_t budget_tokens) const;

  TokenCounter count_;
  std::map<std::string, std::string> files_;                         // path -> description, in path order
  mutable std::optional<std::pair<int64_t, std::string>> rendered_;  // (budget, text); reset by any change
};

}  // namespace kaisha::pyramid
