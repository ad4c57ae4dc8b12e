// EventLog keeps a company's recent progress events, numbered, for readers
// that come and go: the `/events` stream of `kaisha serve`, which a client
// resumes after a reconnect with the id of the last event it saw (SSE's
// Last-Event-ID).
//
// Each event gets the next number of this log (1, 2, ...). An event id, as a
// reader sees it, is "<epoch>-<number>", where the epoch is fixed when the
// log is made (the process's start, in ms): an id from an earlier process
// is recognised as such instead of being mistaken for a recent number.
//
// The log holds the last `capacity` events. A reader that asks to resume
// after an event the log no longer holds (too old, or another epoch) is
// told it missed some and gets everything the log still has.
//
// Each event is kept as its JSON line (msg::progress_event_line), written
// once when it is emitted, whoever and however many read it.
//
// A listener is called for each event in order, without gaps or repeats
// from the one it resumed after, under the log's lock: it must not block
// (queue and return, as an SseWriter does) and must not call the log.
// Returning false ends its subscription. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "runtime/company/progress_sink.hpp"

namespace kaisha::company {

// An event as the log keeps it: what readers filter on, and its JSON line.
struct LoggedEvent {
  msg::EventKind kind = msg::EventKind::note;
  std::string session_id;
  std::string task_id;
  std::string line;
};

class EventLog : public ProgressSink {
 public:
  static constexpr size_t kDefaultCapacity = 10000;

  // `epoch` 0: now, in ms since the Unix epoch.
  explicit EventLog(size_t capacity = kDefaultCapacity, uint64_t epoch = 0);

  void emit(const msg::ProgressEvent& event) override;

  using Listener = std::function<bool(const std::string& id, const LoggedEvent& event)>;

  struct Subscription {
    uint64_t handle = 0;
    // True when `after` named an event the log no longer holds (or another
    // epoch's): some events between it and the first replayed one are lost.
    bool missed = false;
  };
  // Replays the held events after `after` (an id this log gave out, or ""
  // for every held event) to `listener`, then calls it with each new event
  // until unsubscribe() or until it returns false. When events were missed,
  // `on_missed` (if set) runs first, under the same lock. The handle is 0
  // when the listener ended during the replay.
  Subscription subscribe(const std::string& after, Listener listener, std::function<void()> on_missed = {});
  void unsubscribe(uint64_t handle);

  // The id of the newest event, "" when none yet.
  std::string last_id() const;
  uint64_t epoch() const { return epoch_; }
  size_t subscribers() const;

  // "<epoch>-<n>" parsed: nullopt for anything else.
  static std::optional<std::pair<uint64_t, uint64_t>> parse_id(const std::string& id);

 private:
  std::string id_of(uint64_t n) const;

  const size_t capacity_;
  const uint64_t epoch_;
  mutable std::mutex mu_;
  std::deque<std::pair<uint64_t, std::shared_ptr<const LoggedEvent>>> held_;
  uint64_t next_ = 1;
  uint64_t next_handle_ = 1;
  std::map<uint64_t, Listener> listeners_;
};

}  // namespace kaisha::company
