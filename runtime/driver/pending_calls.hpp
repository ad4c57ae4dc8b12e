// PendingCalls: the effects a driver is waiting on, each with what to do
// with its outcome. Every strategy's driver keeps its effects in flight here.
//
// expect<T>(then) hands out a fresh effect id; the outcome carrying that id,
// if it is a T, is given to `then` once, together with the extra arguments
// of deliver() (e.g. the effects list the driver is filling). An outcome
// whose id nothing waits for (never handed out, already answered, dropped)
// or of another type than expected is ignored: deliver() returns false.
//
// A scope groups the calls of one task, so a driver drops what an ended task
// still waits for (drop(scope)) and keeps calls made outside it (scope 0: a
// tool called directly). Not thread-safe: a driver runs on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <variant>

#include "runtime/driver/driver_effects.hpp"

namespace kaisha::driver {

// The effect id an outcome answers.
inline CallId id_of(const Outcome& o) {
  return std::visit([](const auto& x) { return x.id; }, o);
}

template <class... Args>
class PendingCalls {
 public:
  // A new id whose outcome, of type T, goes to `then` (in `scope`).
  template <class T>
  CallId expect(std::function<void(const T&, Args...)> then, uint64_t scope = 0) {
    const CallId id = ++last_id_;
    calls_[id] = Call{scope, kIndexOf<T>, [then = std::move(then)](const Outcome& o, Args... args) {
                        then(std::get<T>(o), std::forward<Args>(args)...);
                      }};
    return id;
  }

  // Runs the continuation `o` answers; false when nothing waits for it.
  // `*scope`, when given, is set to the answered call's scope.
  bool deliver(const Outcome& o, Args... args, uint64_t* scope = nullptr) {
    auto it = calls_.find(id_of(o));
    if (it == calls_.end() || it->second.type != o.index()) return false;
    Call call = std::move(it->second);
    calls_.erase(it);
    if (scope) *scope = call.scope;
    call.then(o, std::forward<Args>(args)...);
    return true;
  }

  // Forgets every call of `scope` (their outcomes are then ignored).
  void drop(uint64_t scope) {
    for (auto it = calls_.begin(); it != calls_.end();)
      it = it->second.scope == scope ? calls_.erase(it) : std::next(it);
  }
  // Forgets every call but those of scope 0.
  void drop_scoped() {
    for (auto it = calls_.begin(); it != calls_.end();) it = it->second.scope != 0 ? calls_.erase(it) : std::next(it);
  }
  void clear() { calls_.clear(); }

  // How many calls wait, in all or for an outcome of type T.
  size_t waiting() const { return calls_.size(); }
  template <class T>
  size_t waiting_for() const {
    size_t n = 0;
    for (const auto& [id, call] : calls_) n += call.type == kIndexOf<T>;
    return n;
  }

 private:
  template <class T, size_t I = 0>
  static constexpr size_t index_of() {
    static_assert(I < std::variant_size_v<Outcome>, "not an outcome type");
    if constexpr (std::is_same_v<std::variant_alternative_t<I, Outcome>, T>)
      return I;
    else
      return index_of<T, I + 1>();
  }
  template <class T>
  static constexpr size_t kIndexOf = index_of<T>();

  struct Call {
    uint64_t scope = 0;
    size_t type = 0;  // the Outcome alternative expected
    std::function<void(const Outcome&, Args...)> then;
  };
  CallId last_id_ = 0;
  std::map<CallId, Call> calls_;
};

}  // namespace kaisha::driver
