#include "runtime/economy/ledger.hpp"

#include <algorithm>

namespace kaisha::economy {

Ledger::Ledger(std::string name, double total, bool enabled)
    : name_(std::move(name)), total_(to_micros(total)), enabled_(enabled) {}

Error Ledger::refusal_locked(Micros amount) const {
  Micros left = std::max<Micros>(0, total_ - used_ - reserved_);
  return Error{"budget", "No " + name_ + " budget remaining: needs " + format_micros(amount) + " but only " +
                             format_micros(left) + " is remaining"};
}

Result<ReservationId> Ledger::reserve(double amount) {
  Micros m = to_micros(amount);
  std::lock_guard lock(mu_);
  if (m < 0) return Error{"budget", "cannot reserve a negative " + name_ + " amount"};
  ReservationId id = next_id_++;
  if (!enabled_) {
    holds_.emplace(id, 0);  // disabled: an empty hold, so settle/release still work
    return id;
  }
  if (!fits_locked(m)) return refusal_locked(m);
  holds_.emplace(id, m);
  reserved_ += m;
  return id;
}

double Ledger::settle(ReservationId id, double actual) {
  Micros a = std::max<Micros>(0, to_micros(actual));
  std::lock_guard lock(mu_);
  auto it = holds_.find(id);
  if (it == holds_.end()) return 0;
  const Micros held = it->second;
  reserved_ -= held;
  holds_.erase(it);
  if (!enabled_) return 0;
  used_ += a;
  return from_micros(std::max<Micros>(0, a - held));
}

void Ledger::release(ReservationId id) {
  std::lock_guard lock(mu_);
  auto it = holds_.find(id);
  if (it == holds_.end()) return;
  reserved_ -= it->second;
  holds_.erase(it);
}

Status Ledger::charge(double amount) {
  Micros m = to_micros(amount);
  std::lock_guard lock(mu_);
  if (m < 0) return Error{"budget", "cannot charge a negative " + name_ + " amount"};
  if (!enabled_) return Status::Ok();
  if (!fits_locked(m)) return refusal_locked(m);
  used_ += m;
  return Status::Ok();
}

Status Ledger::refund(double amount) {
  Micros m = to_micros(amount);
  std::lock_guard lock(mu_);
  if (m < 0) return Error{"budget", "cannot refund a negative " + name_ + " amount"};
  if (!enabled_) return Status::Ok();
  if (used_ - m < 0) return Error{"budget", "Not enough " + name_ + " budget to remove"};
  used_ -= m;
  return Status::Ok();
}

void Ledger::record_spent(double amount) {
  Micros m = std::max<Micros>(0, to_micros(amount));
  std::lock_guard lock(mu_);
  if (enabled_) used_ += m;
}

void Ledger::raise(double additional_total) {
  std::lock_guard lock(mu_);
  total_ += to_micros(additional_total);
}

void Ledger::set_total(double total) {
  std::lock_guard lock(mu_);
  total_ = to_micros(total);
}

void Ledger::set_enabled(bool enabled) {
  std::lock_guard lock(mu_);
  enabled_ = enabled;
}

bool Ledger::enabled() const {
  std::lock_guard lock(mu_);
  return enabled_;
}

double Ledger::total() const {
  std::lock_guard lock(mu_);
  return from_micros(total_);
}

double Ledger::used() const {
  std::lock_guard lock(mu_);
  return from_micros(used_);
}

double Ledger::reserved() const {
  std::lock_guard lock(mu_);
  return from_micros(reserved_);
}

double Ledger::remaining() const {
  std::lock_guard lock(mu_);
  return from_micros(std::max<Micros>(0, total_ - used_ - reserved_));
}

double Ledger::overspent() const {
  std::lock_guard lock(mu_);
  return from_micros(std::max<Micros>(0, used_ - total_));
}

bool Ledger::can_spend(double amount) const {
  Micros m = to_micros(amount);
  std::lock_guard lock(mu_);
  return !enabled_ || fits_locked(m);
}

LedgerState Ledger::snapshot() const {
  std::lock_guard lock(mu_);
  return LedgerState{from_micros(total_), from_micros(used_), enabled_};
}

void Ledger::restore(const LedgerState& state) {
  std::lock_guard lock(mu_);
  total_ = to_micros(state.total);
  used_ = std::max<Micros>(0, to_micros(state.used));
  enabled_ = state.enabled;
}

}  // namespace kaisha::economy
