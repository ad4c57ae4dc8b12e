// CallTree: C_SM, the short-term shared memory of one task (InfiAgent,
// infiagent.md §3.8, Eq. 9, and §10 item 42): the calls that are running
// now, as a tree of (agent, role, task input). A call is pushed when a
// parent invokes an agent and popped when it ends (final_output), so every
// agent's prompt shows the active tree only: running siblings' branches
// are there, finished ones are gone, and no agent's tool history ever is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kaisha::pyramid {

class CallTree {
 public:
  // A new call of `agent` made by call `parent` (0: the task's first call);
  // `role` is the agent's responsibility, `task_input` what it was asked.
  // Returns its id (never 0), or 0 when `parent` is not running.
  uint64_t push(uint64_t parent, std::string agent, std::string role, std::string task_input);
  // The call ended: it leaves the tree, and so do calls it made that are
  // still running (their answers have nobody to go to). False when unknown.
  bool pop(uint64_t id);
  bool running(uint64_t id) const { return calls_.count(id) != 0; }
  size_t size() const { return calls_.size(); }
  // The calls from the task's first call down to `id`; empty when unknown.
  std::vector<uint64_t> path_to(uint64_t id) const;

  // The active tree as prompt lines, indented by depth, `here` marked as
  // the reader; roles and inputs cut at a character to `max_text_bytes`.
  // Bounded by the reader's place, not by the tree's size: the calls on the
  // path from the task's first call to `here` and every sibling of them
  // show; what runs under a sibling is one line counting it. At most
  // K_max lines per level of the path, however many calls run. "" when
  // nothing runs.
  std::string render(uint64_t here, size_t max_text_bytes = 200) const;

 private:
  struct Call {
    uint64_t parent = 0;
    std::string agent, role, task_input;
  };
  void render_from(uint64_t parent, int depth, const std::vector<uint64_t>& path, uint64_t here, size_t max_text_bytes,
                   std::string& out) const;
  size_t descendants(uint64_t id) const;

  uint64_t last_id_ = 0;
  std::map<uint64_t, Call> calls_;  // by id: the order calls were made
};

}  // namespace kaisha::pyramid
