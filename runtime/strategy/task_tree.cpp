#include "runtime/strategy/task_tree.hpp"

#include <cstdio>

namespace kaisha::strategy {

using nlohmann::json;

std::string duration_text(int64_t ms) {
  if (ms < 1000) return std::to_string(ms) + " ms";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", double(ms) / 1000.0);
  return buf;
}

std::string usd_text(double usd) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", usd);
  std::string s = buf;
  // "$0.012300" reads as "$0.0123"; whole cents keep two decimals.
  while (s.size() > 1 && s.back() == '0' && s.find('.') != std::string::npos && s.size() - s.find('.') > 3)
    s.pop_back();
  return "$" + s;
}

namespace {

std::string numbers(const TaskTree& n) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (n.tokens_in != 0 || n.tokens_out != 0)
    add(std::to_string(n.tokens_in) + " in / " + std::to_string(n.tokens_out) + " out");
  if (n.usd != 0) add(usd_text(n.usd));
  if (n.ms >= 0) add(duration_text(n.ms));
  return out;
}

void render(const TaskTree& n, const std::string& lead, const std::string& branch, std::string& out) {
  out += lead + branch + n.label;
  if (!n.status.empty()) out += " [" + n.status + "]";
  const std::string nums = numbers(n);
  if (!nums.empty()) out += "  (" + nums + ")";
  out += "\n";
  // The root has no branch; its children's lines start at the margin.
  const std::string inner = branch.empty() ? lead : lead + (branch == "├─ " ? "│  " : "   ");
  for (size_t i = 0; i < n.children.size(); ++i)
    render(n.children[i], inner, i + 1 == n.children.size() ? "└─ " : "├─ ", out);
}

}  // namespace

std::string render_tree_text(const TaskTree& tree) {
  std::string out;
  render(tree, "", "", out);
  return out;
}

json tree_to_json(const TaskTree& tree) {
  json kids = json::array();
  for (const auto& c : tree.children) kids.push_back(tree_to_json(c));
  json out{{"label", tree.label},
           {"agent", tree.agent},
           {"kind", tree.kind},
           {"status", tree.status},
           {"tokens_in", tree.tokens_in},
           {"tokens_out", tree.tokens_out},
           {"usd", tree.usd},
           {"ms", tree.ms >= 0 ? json(tree.ms) : json(nullptr)},
           {"children", std::move(kids)}};
  if (!tree.key.empty()) out["key"] = tree.key;
  if (!tree.after.empty()) out["after"] = tree.after;
  if (!tree.routed.empty()) out["routed"] = tree.routed;
  return out;
}

}  // namespace kaisha::strategy
