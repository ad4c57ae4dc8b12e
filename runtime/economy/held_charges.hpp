// HeldCharges: a ledger's settlements waiting for the record that keeps
// their call's answer, so that the journal writes both in one commit.
//
// A charge is held under the key of that record — its task, the call's
// number in the task, and the step of an employee's tool loop (-1: the
// call's own outcome). Taking a key returns its rows in the order they were
// held, with how far they moved the budget.
//
// UnsavedChanges sums the budget changes held, by every ledger of one
// Budget: the budget a journal may be shown is the live one without them
// (taken_from), so no budget on disk counts a charge whose row is not there.
//
// Plain data; the ledger actor owns one HeldCharges, and shares one
// UnsavedChanges (under a mutex) with the other ledgers of its Budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/economy/budget.hpp"

namespace kaisha::economy {

// How far a change moved a budget's numbers (what a snapshot records).
struct BudgetChange {
  double resource_used = 0;
  double expense_used = 0;
  double internal_invoke_cost = 0;
  double expense_overshoot = 0;
  int overshoot_calls = 0;

  static BudgetChange between(const BudgetState& before, const BudgetState& after) {
    return {after.resource.used - before.resource.used, after.expense.used - before.expense.used,
            after.internal_invoke_cost - before.internal_invoke_cost,
            after.expense_overshoot - before.expense_overshoot, after.overshoot_calls - before.overshoot_calls};
  }
  BudgetChange& operator+=(const BudgetChange& o) {
    resource_used += o.resource_used;
    expense_used += o.expense_used;
    internal_invoke_cost += o.internal_invoke_cost;
    expense_overshoot += o.expense_overshoot;
    overshoot_calls += o.overshoot_calls;
    return *this;
  }
  BudgetChange& operator-=(const BudgetChange& o) {
    resource_used -= o.resource_used;
    expense_used -= o.expense_used;
    internal_invoke_cost -= o.internal_invoke_cost;
    expense_overshoot -= o.expense_overshoot;
    overshoot_calls -= o.overshoot_calls;
    return *this;
  }
  // `state` as it was before this change.
  BudgetState taken_from(BudgetState state) const {
    state.resource.used -= resource_used;
    state.expense.used -= expense_used;
    state.internal_invoke_cost -= internal_invoke_cost;
    state.expense_overshoot -= expense_overshoot;
    state.overshoot_calls -= overshoot_calls;
    return state;
  }
};

class UnsavedChanges {
 public:
  void add(const BudgetChange& change) {
    total_ += change;
    ++count_;
  }
  // `count` changes added before, summing to `change`, are on disk now.
  void saved(const BudgetChange& change, size_t count) {
    count_ -= count;
    // Exactly nothing once nothing is held, whatever rounding the sums made.
    if (count_ == 0)
      total_ = BudgetChange{};
    else
      total_ -= change;
  }
  const BudgetChange& total() const { return total_; }
  // `state` without the changes not on disk.
  BudgetState taken_from(BudgetState state) const { return total_.taken_from(std::move(state)); }

 private:
  BudgetChange total_;
  size_t count_ = 0;
};

template <class Row>
class HeldCharges {
 public:
  struct Key {
    std::string task;
    int64_t call = 0;
    int64_t step = -1;  // -1: the call's outcome; >= 0: a step of its tool loop
    bool operator<(const Key& o) const { return std::tie(task, call, step) < std::tie(o.task, o.call, o.step); }
  };

  void hold(const Key& key, std::vector<Row> rows, const BudgetChange& change) {
    Held& h = held_[key];
    ++h.holds;
    rows_ += rows.size();
    for (auto& r : rows) h.rows.push_back(std::move(r));
    h.change += change;
  }

  struct Taken {
    std::vector<Row> rows;
    BudgetChange change;  // what they moved the budget by
    size_t holds = 0;     // how many hold() calls they came in
  };
  // What is held under `key`, no longer held; nothing when nothing is.
  std::optional<Taken> take(const Key& key) {
    auto it = held_.find(key);
    if (it == held_.end()) return std::nullopt;
    Taken t{std::move(it->second.rows), it->second.change, it->second.holds};
    rows_ -= t.rows.size();
    held_.erase(it);
    return t;
  }

  // Every key of `task` held now (every key when `task` is empty), in key order.
  std::vector<Key> keys_of(const std::string& task) const {
    std::vector<Key> keys;
    for (const auto& [key, h] : held_)
      if (task.empty() || key.task == task) keys.push_back(key);
    return keys;
  }

  size_t rows() const { return rows_; }
  bool empty() const { return held_.empty(); }

 private:
  struct Held {
    std::vector<Row> rows;
    BudgetChange change;
    size_t holds = 0;
  };
  std::map<Key, Held> held_;
  size_t rows_ = 0;
};

}  // namespace kaisha::economy
