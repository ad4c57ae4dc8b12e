#include "runtime/strategy/tree_building.hpp"

#include <algorithm>

#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::strategy {

using nlohmann::json;

TreeBuilder::TreeBuilder(const TaskRecord& task) {
  TaskTree root;
  root.kind = "task";
  root.label =
      "task " + task.id + (task.strategy.empty() ? "" : " (" + task.strategy + ")") + ": " + short_text(task.input);
  root.status = task.status == "done" ? "" : task.status;
  root.tokens_in = task.tokens_in;
  root.tokens_out = task.tokens_out;
  root.usd = task.usd;
  // A task still running (or killed before its end was written) has no wall time yet.
  root.ms = task.status == "running" || (task.wall_ms == 0 && task.status == "interrupted") ? -1 : task.wall_ms;
  Slot s;
  s.node = std::move(root);
  s.totals_given = true;
  nodes_.push_back(std::move(s));
}

TreeBuilder::Id TreeBuilder::add(Id parent, TaskTree node, int64_t started_at) {
  if (parent >= nodes_.size()) parent = kRoot;
  Slot s;
  s.node = std::move(node);
  s.node.children.clear();
  s.parent = parent;
  s.started = started_at;
  nodes_.push_back(std::move(s));
  const Id id = nodes_.size() - 1;
  nodes_[parent].kids.push_back(id);
  return id;
}

void TreeBuilder::charge(Id id, const TaskStep& step) {
  TaskTree& n = nodes_[id].node;
  n.tokens_in += step.tokens_in;
  n.tokens_out += step.tokens_out;
  n.usd += step.usd;
}

void TreeBuilder::start(Id id, int64_t at) {
  if (at <= 0) return;
  int64_t& s = nodes_[id].started;
  if (s == 0 || at < s) s = at;
}

void TreeBuilder::end(Id id, int64_t at) {
  if (at <= 0) return;
  nodes_[id].ended = std::max(nodes_[id].ended, at);
}

TaskTree TreeBuilder::assemble(Id id, int64_t& latest_end) {
  Slot& s = nodes_[id];
  TaskTree n = s.node;
  latest_end = s.ended;
  for (Id k : s.kids) {
    if (nodes_[k].hidden) continue;
    int64_t kid_end = 0;
    TaskTree child = assemble(k, kid_end);
    latest_end = std::max(latest_end, kid_end);
    if (!s.totals_given) {
      n.tokens_in += child.tokens_in;
      n.tokens_out += child.tokens_out;
      n.usd += child.usd;
    }
    n.children.push_back(std::move(child));
  }
  if (id != kRoot) n.ms = s.started > 0 && latest_end >= s.started ? latest_end - s.started : -1;
  return n;
}

TaskTree TreeBuilder::finish() {
  int64_t ignored = 0;
  return assemble(kRoot, ignored);
}

std::string short_text(std::string_view text, size_t max_bytes) {
  // The journal's text is valid UTF-8 (repaired where it entered); repair
  // anyway, so that a damaged row cannot make the label invalid. Each run of
  // white space becomes one space: a label is one line.
  std::string flat;
  for (char c : utf8::repair(text)) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (flat.empty() || flat.back() == ' ')) continue;
    flat += space ? ' ' : c;
  }
  while (!flat.empty() && flat.back() == ' ') flat.pop_back();
  return utf8::shorten(flat, max_bytes);
}

std::string payload_text(const json& payload, size_t max_bytes) { return short_text(dump_text(payload), max_bytes); }

const json& field(const json& payload, const char* key) {
  static const json none;
  if (!payload.is_object()) return none;
  auto it = payload.find(key);
  return it == payload.end() ? none : *it;
}

std::string text_field(const json& payload, const char* key) {
  const json& v = field(payload, key);
  return v.is_string() ? v.get<std::string>() : "";
}

int64_t int_field(const json& payload, const char* key, int64_t otherwise) {
  const json& v = field(payload, key);
  return v.is_number_integer() ? v.get<int64_t>() : otherwise;
}

json arguments_of(const json& arguments) {
  if (arguments.is_object()) return arguments;
  if (!arguments.is_string()) return nullptr;
  json parsed = json::parse(arguments.get<std::string>(), nullptr, false);
  return parsed.is_discarded() ? json(nullptr) : parsed;
}

TaskTree plain_step(const TaskStep& step) {
  TaskTree n;
  n.kind = "step";
  n.agent = step.agent;
  n.label = step.agent + " " + step.kind + ": " + payload_text(step.payload);
  n.tokens_in = step.tokens_in;
  n.tokens_out = step.tokens_out;
  n.usd = step.usd;
  return n;
}

}  // namespace kaisha::strategy
