// What every strategy's tree builder shares: a tree grown node by node while
// a task's steps are read in journal order (TreeBuilder), reading a payload
// without trusting its shape, and the node of a step no builder understands.
// The journal is read, never believed: a field of the wrong type reads as
// missing, and nothing here throws on any payload.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/strategy/task_tree.hpp"

namespace kaisha::strategy {

// A tree under construction. Nodes get stable ids (a child added later does
// not move its parent), their own cost, and the times they started and
// ended; finish() sums each node's cost with its children's and times it from
// its start to the latest end beneath it.
class TreeBuilder {
 public:
  using Id = size_t;
  static constexpr Id kRoot = 0;

  // The root is the task: its label, status, totals and wall time (from the
  // task row, never summed from the steps).
  explicit TreeBuilder(const TaskRecord& task);

  // Adds `node` (its own cost in its numbers, no children) under `parent`;
  // `started_at` 0 = not known. Returns its id.
  Id add(Id parent, TaskTree node, int64_t started_at = 0);
  TaskTree& node(Id id) { return nodes_[id].node; }
  Id parent(Id id) const { return nodes_[id].parent; }
  // Adds a step's tokens and dollars to the node's own cost.
  void charge(Id id, const TaskStep& step);
  void start(Id id, int64_t at);  // keeps the earliest known start
  void end(Id id, int64_t at);    // keeps the latest known end
  // The node's numbers already include its children's (a pyramid answer):
  // finish() does not add theirs again.
  void totals_given(Id id) { nodes_[id].totals_given = true; }
  // Leaves the node (and anything under it) out of the tree.
  void hide(Id id) { nodes_[id].hidden = true; }

  TaskTree finish();

 private:
  struct Slot {
    TaskTree node;
    Id parent = 0;
    std::vector<Id> kids;
    int64_t started = 0, ended = 0;
    bool totals_given = false, hidden = false;
  };
  // The subtree at `id`, and the latest end beneath it (0 = none).
  TaskTree assemble(Id id, int64_t& latest_end);

  std::vector<Slot> nodes_;
};

// `text` on one line, cut at a code-point boundary to at most `max_bytes`
// (and an ellipsis).
std::string short_text(std::string_view text, size_t max_bytes = 80);

// The payload as one line of JSON text, shortened like short_text().
std::string payload_text(const nlohmann::json& payload, size_t max_bytes = 80);

// payload[key] as a string; "" when missing or not a string.
std::string text_field(const nlohmann::json& payload, const char* key);
// payload[key] as an integer; `otherwise` when missing or not one.
int64_t int_field(const nlohmann::json& payload, const char* key, int64_t otherwise = 0);
// payload[key], or null when missing (or payload is not an object).
const nlohmann::json& field(const nlohmann::json& payload, const char* key);
// A tool call's arguments as JSON: an object as it is, a string parsed (a
// model writes arguments as JSON text); null when neither.
nlohmann::json arguments_of(const nlohmann::json& arguments);

// The node of a step shown as it is: "<agent> <kind>: <payload>", with the
// step's tokens and dollars. For kinds and payloads a builder does not know.
TaskTree plain_step(const TaskStep& step);

}  // namespace kaisha::strategy
