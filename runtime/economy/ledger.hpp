// Ledger: one budget dimension (resource points or USD) with reservations.
//
// Invariants (kept under mu_):
//   used_ >= 0, reserved_ >= 0, reserved_ == sum of holds_ values.
//   A successful reserve() or charge() never makes used_ + reserved_ exceed
//   total_: the check and the update happen under one lock, so any number of
//   concurrent callers cannot overshoot the total together.
//   used_ can exceed total_ only through settle() with more than was held or
//   through record_spent(): money already spent at a provider is recorded, not
//   refused (see settle()). While it does, every non-zero reserve() or
//   charge() is refused; an amount of 0 (a free call) always fits.
// When the ledger is disabled every check passes and nothing is charged or
// held (hashiru.md §9 item 26); reservations taken while disabled are empty.
//
// Amounts are kept as integer micro-units (amount.hpp), so arithmetic is exact.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/core/result.hpp"
#include "runtime/economy/amount.hpp"

namespace kaisha::economy {

using ReservationId = uint64_t;

// A ledger's persistent part. Reservations are in-flight state and are not
// part of it: after a restart nothing is in flight.
struct LedgerState {
  double total = 0;
  double used = 0;
  bool enabled = true;
};

class Ledger {
 public:
  // `name` is "resource" or "expense": it appears in error messages.
  Ledger(std::string name, double total, bool enabled = true);
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Holds `amount` until settle() or release(). Refused (code "budget") when
  // used + reserved + amount > total. Negative amounts are refused.
  Result<ReservationId> reserve(double amount);

  // Commits `actual` and releases the whole hold. If `actual` is more than
  // was held, the actual amount is still committed (even past the total):
  // the call has happened and its cost is real. Returns that excess over the
  // hold (0 when the hold covered it, when disabled, or for an unknown id,
  // which is ignored).
  double settle(ReservationId id, double actual);

  // Releases the hold without committing anything. Unknown ids are ignored.
  void release(ReservationId id);

  // Check and commit atomically; refused like reserve(), nothing charged then.
  Status charge(double amount);

  // Gives back committed amount. Refused with "Not enough <name> budget to
  // remove" when used would go below 0; nothing changes then.
  Status refund(double amount);

  // Commits `amount` without a check (a cost that was already incurred).
  void record_spent(double amount);

  // Raises the total by `additional_total` (a user-authorised increase).
  void raise(double additional_total);
  void set_total(double total);

  void set_enabled(bool enabled);
  bool enabled() const;

  const std::string& name() const { return name_; }
  double total() const;
  double used() const;      // committed
  double reserved() const;  // held by in-flight reservations
  // total - used - reserved, never below 0: what the next reserve() can get.
  double remaining() const;
  // used - total when spending went past the total (see settle()), else 0.
  double overspent() const;
  // Would reserve(amount) succeed now? (Always true while disabled.)
  bool can_spend(double amount) const;

  LedgerState snapshot() const;
  // Replaces total, used and enabled; in-flight holds are kept.
  void restore(const LedgerState& state);

 private:
  bool fits_locked(Micros amount) const { return amount == 0 || used_ + reserved_ + amount <= total_; }
  Error refusal_locked(Micros amount) const;

  const std::string name_;
  mutable std::mutex mu_;
  Micros total_;
  Micros used_ = 0;
  Micros reserved_ = 0;
  bool enabled_;
  ReservationId next_id_ = 1;
  std::unordered_map<ReservationId, Micros> holds_;
};

}  // namespace kaisha::economy
