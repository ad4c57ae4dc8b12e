#include "runtime/company/event_log.hpp"

#include <charconv>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/messages/progress_event_json.hpp"

namespace kaisha::company {

EventLog::EventLog(size_t capacity, uint64_t epoch)
    : capacity_(capacity == 0 ? 1 : capacity), epoch_(epoch ? epoch : static_cast<uint64_t>(wall_ms())) {}

std::string EventLog::id_of(uint64_t n) const {
  char buf[48];  // two 20-digit numbers and the dash
  char* end = std::to_chars(buf, buf + 20, epoch_).ptr;
  *end++ = '-';
  end = std::to_chars(end, end + 20, n).ptr;
  return std::string(buf, end);
}

std::optional<std::pair<uint64_t, uint64_t>> EventLog::parse_id(const std::string& id) {
  const auto dash = id.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 >= id.size() || id.size() > 41) return std::nullopt;
  uint64_t parts[2] = {0, 0};
  for (int p = 0; p < 2; ++p) {
    const size_t from = p == 0 ? 0 : dash + 1, to = p == 0 ? dash : id.size();
    for (size_t i = from; i < to; ++i) {
      if (id[i] < '0' || id[i] > '9') return std::nullopt;
      if (parts[p] > (UINT64_MAX - 9) / 10) return std::nullopt;
      parts[p] = parts[p] * 10 + static_cast<uint64_t>(id[i] - '0');
    }
  }
  return std::pair{parts[0], parts[1]};
}

void EventLog::emit(const msg::ProgressEvent& event) {
  // Written outside the lock: emitters on several threads do not wait on each other's JSON.
  auto logged = std::make_shared<const LoggedEvent>(
      LoggedEvent{event.kind, event.session_id, event.task_id, msg::progress_event_line(event)});
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t n = next_++;
  held_.emplace_back(n, logged);
  if (held_.size() > capacity_) held_.pop_front();
  if (listeners_.empty()) return;
  const std::string id = id_of(n);
  for (auto it = listeners_.begin(); it != listeners_.end();) {
    bool keep = false;
    try {
      keep = it->second(id, *logged);
    } catch (...) {
      keep = false;  // a listener that throws is done
    }
    it = keep ? std::next(it) : listeners_.erase(it);
  }
}

EventLog::Subscription EventLog::subscribe(const std::string& after, Listener listener,
                                           std::function<void()> on_missed) {
  Subscription out;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t from = 0;  // replay events numbered above this
  if (!after.empty()) {
    auto id = parse_id(after);
    if (!id || id->first != epoch_ || id->second >= next_) {
      out.missed = true;  // not this log's: replay what it holds
    } else {
      from = id->second;
      const uint64_t oldest = held_.empty() ? next_ : held_.front().first;
      if (from + 1 < oldest) out.missed = true;
    }
  }
  if (out.missed && on_missed) on_missed();
  for (const auto& [n, e] : held_) {
    if (n <= from) continue;
    bool keep = false;
    try {
      keep = listener(id_of(n), *e);
    } catch (...) {
    }
    if (!keep) return out;  // handle 0: nothing to unsubscribe
  }
  out.handle = next_handle_++;
  listeners_.emplace(out.handle, std::move(listener));
  return out;
}

void EventLog::unsubscribe(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.erase(handle);
}

std::string EventLog::last_id() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_ == 1 ? "" : id_of(next_ - 1);
}

size_t EventLog::subscribers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return listeners_.size();
}

}  // namespace kaisha::company
