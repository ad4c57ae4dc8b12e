// Stalls a journal actor's writer, as a slow disk would: the batch being
// written waits inside an operation until release() (or destruction).
#pragma once

#include <chrono>
#include <future>
#include <memory>

#include <caf/all.hpp>

#include "actors/system/journal_actor.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {

class StalledJournal {
 public:
  explicit StalledJournal(const caf::actor& journal) {
    std::shared_future<void> released = release_.get_future().share();
    journal_op(journal, [released, entered = entered_](store::JournalStore&) {
      entered->set_value();
      released.wait();
    });
  }
  ~StalledJournal() { release(); }
  StalledJournal(const StalledJournal&) = delete;
  StalledJournal& operator=(const StalledJournal&) = delete;

  // True once the writer waits inside the stall (false after `cap`).
  bool entered(std::chrono::seconds cap = std::chrono::seconds(60)) {
    return entered_->get_future().wait_for(cap) == std::future_status::ready;
  }
  void release() {
    if (!released_) release_.set_value();
    released_ = true;
  }

 private:
  std::promise<void> release_;
  // Shared with the operation, which may outlive this object if it never ran.
  std::shared_ptr<std::promise<void>> entered_ = std::make_shared<std::promise<void>>();
  bool released_ = false;
};

}  // namespace kaisha::actors
