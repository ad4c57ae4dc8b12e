#include "runtime/pyramid/call_tree.hpp"

#include <algorithm>

#include "runtime/core/utf8.hpp"

namespace kaisha::pyramid {

uint64_t CallTree::push(uint64_t parent, std::string agent, std::string role, std::string task_input) {
  if (parent != 0 && !running(parent)) return 0;
  const uint64_t id = ++last_id_;
  calls_[id] = Call{parent, std::move(agent), std::move(role), std::move(task_input)};
  return id;
}

bool CallTree::pop(uint64_t id) {
  if (!running(id)) return false;
  std::vector<uint64_t> gone = {id};
  for (size_t i = 0; i < gone.size(); ++i)
    for (const auto& [child, c] : calls_)
      if (c.parent == gone[i]) gone.push_back(child);
  for (uint64_t g : gone) calls_.erase(g);
  return true;
}

std::vector<uint64_t> CallTree::path_to(uint64_t id) const {
  std::vector<uint64_t> path;
  for (auto it = calls_.find(id); it != calls_.end(); it = calls_.find(it->second.parent)) path.push_back(it->first);
  std::reverse(path.begin(), path.end());
  return path;
}

size_t CallTree::descendants(uint64_t id) const {
  size_t n = 0;
  std::vector<uint64_t> open = {id};
  while (!open.empty()) {
    const uint64_t p = open.back();
    open.pop_back();
    for (const auto& [child, c] : calls_)
      if (c.parent == p) ++n, open.push_back(child);
  }
  return n;
}

void CallTree::render_from(uint64_t parent, int depth, const std::vector<uint64_t>& path, uint64_t here,
                           size_t max_text_bytes, std::string& out) const {
  const std::string indent(size_t(depth) * 2, ' ');
  for (const auto& [id, c] : calls_) {
    if (c.parent != parent) continue;
    out += indent + "- " + c.agent;
    if (!c.role.empty()) out += " (" + utf8::one_line(c.role, max_text_bytes) + ")";
    out += ": " + utf8::one_line(c.task_input, max_text_bytes);
    if (id == here) out += "  <- you";
    out += "\n";
    if (std::find(path.begin(), path.end(), id) != path.end()) {
      render_from(id, depth + 1, path, here, max_text_bytes, out);
    } else if (const size_t n = descendants(id); n > 0) {
      out += indent + "  - (" + std::to_string(n) + (n == 1 ? " more call" : " more calls") + " running under it)\n";
    }
  }
}

std::string CallTree::render(uint64_t here, size_t max_text_bytes) const {
  std::string out;
  render_from(0, 0, path_to(here), here, max_text_bytes, out);
  return out;
}

}  // namespace kaisha::pyramid
