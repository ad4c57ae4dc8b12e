// The knobs of one subtask's workflow search (halo.md §6.2, §6.3, §12
// items 11 and 13–16). The defaults are the reference code's; the caps are
// not in the reference, which can loop forever (§6.2 "known defects").
#pragma once

namespace kaisha::halo {

// How many children an expansion creates: one per role, all at once (the
// reference), or one untried role per expansion (lowest role index first).
enum class ExpansionWidth { full, one_per_expansion };

// When Eq. 11 counts the visit it is applying: the reference increments the
// node's visits n before using n in the formula; the other order applies
// the formula with the old n and increments afterwards.
enum class VisitOrder { increment_first, increment_after };

struct SearchSettings {
  int max_depth = 5;  // D: no tree node or rollout step is deeper
  int attempts = 5;   // rollouts per selection
  ExpansionWidth width = ExpansionWidth::full;
  double exploration = 1.4;       // α of Eq. 9
  double success_reward = 0.7;    // λ(success) of Eq. 11
  double failure_penalty = -0.3;  // λ(fail or depth exhausted) of Eq. 11
  VisitOrder visit_order = VisitOrder::increment_first;
  // An iteration is one selection (and the expansion and rollouts after
  // it); the search ends when this many have run without a terminal node.
  int max_iterations = 20;
  // A node evaluation is one agent's answer, judged and scored (three model
  // calls). The search never requests more than this many.
  int max_evaluations = 200;
};

// Throws std::invalid_argument naming the first bad setting and its value:
// max_depth, attempts, max_iterations or max_evaluations below 1; an
// exploration that is negative or not finite; a reward or penalty that is
// not finite; a width or visit order that is none of the enumerators.
void validate(const SearchSettings& settings);

}  // namespace kaisha::halo
