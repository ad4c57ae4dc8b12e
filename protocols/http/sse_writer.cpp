#include "protocols/http/sse_writer.hpp"

#include <utility>

namespace kaisha::protocols {

std::string format_sse_event(std::string_view data, std::string_view event, std::string_view id) {
  std::string out;
  out.reserve(data.size() + 32);
  if (!event.empty()) out.append("event: ").append(event).append("\n");
  if (!id.empty()) out.append("id: ").append(id).append("\n");
  size_t start = 0;
  while (true) {
    size_t nl = data.find('\n', start);
    std::string_view line = data.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.append("data: ").append(line).append("\n");
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  out.append("\n");
  return out;
}

bool SseWriter::send(std::string_view data, std::string_view event, std::string_view id) {
  return send_raw(format_sse_event(data, event, id));
}

bool SseWriter::send_retry(int64_t ms) { return send_raw("retry: " + std::to_string(ms) + "\n\n"); }

bool SseWriter::send_raw(std::string text) {
  std::function<void()> wake;
  bool accepted = true;
  {
    std::lock_guard lock(mu_);
    if (closing_ || ended_) return false;
    if (!queue_.empty() && queued_bytes_ + text.size() > max_queued_) {
      // The client reads more slowly than events arrive: drop it. on_close
      // runs on the server's side, never inside send().
      overflowed_ = true;
      disconnected_ = true;
      ended_ = true;
      closing_ = true;
      queue_.clear();
      queued_bytes_ = 0;
      accepted = false;
      wake = wake_locked(true);
    } else {
      queued_bytes_ += text.size();
      queue_.push_back(std::move(text));
      wake = wake_locked(false);
    }
  }
  if (wake) wake();
  return accepted;
}

void SseWriter::close() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (closing_ || ended_) return;
    closing_ = true;
    wake = wake_locked(true);
  }
  if (wake) wake();
}

void SseWriter::abort() {
  std::unique_lock lock(mu_);
  closing_ = true;
  ended_ = true;
  queue_.clear();
  queued_bytes_ = 0;
  auto wake = wake_locked(true);
  fire_close_locked(lock);
  lock.unlock();
  if (wake) wake();
}

bool SseWriter::closed() const {
  std::lock_guard lock(mu_);
  return closing_ || ended_;
}

bool SseWriter::disconnected() const {
  std::lock_guard lock(mu_);
  return disconnected_;
}

bool SseWriter::overflowed() const {
  std::lock_guard lock(mu_);
  return overflowed_;
}

bool SseWriter::ended() const {
  std::lock_guard lock(mu_);
  return ended_;
}

void SseWriter::on_close(std::function<void()> callback) {
  std::unique_lock lock(mu_);
  on_close_ = std::move(callback);
  if (ended_ && !close_fired_) fire_close_locked(lock);
}

void SseWriter::attach(std::function<void()> wake) {
  std::function<void()> now;
  {
    std::lock_guard lock(mu_);
    wake_ = std::move(wake);
    wake_pending_ = false;
    now = wake_locked(true);  // what was queued before the server took over
  }
  if (now) now();
}

SseWriter::Batch SseWriter::take() {
  std::lock_guard lock(mu_);
  Batch b;
  wake_pending_ = false;
  b.ended = ended_;
  if (ended_) return b;
  b.text.reserve(queued_bytes_);
  for (auto& t : queue_) b.text += t;
  queue_.clear();
  queued_bytes_ = 0;
  b.finish = closing_;
  return b;
}

void SseWriter::mark_ended(bool disconnected) {
  std::unique_lock lock(mu_);
  if (disconnected && !ended_) disconnected_ = true;
  ended_ = true;
  closing_ = true;
  queue_.clear();
  queued_bytes_ = 0;
  fire_close_locked(lock);
}

std::function<void()> SseWriter::wake_locked(bool always) {
  if (!wake_ || (wake_pending_ && !always)) return nullptr;
  wake_pending_ = true;
  return wake_;
}

void SseWriter::fire_close_locked(std::unique_lock<std::mutex>& lock) {
  if (close_fired_ || !ended_) return;
  close_fired_ = true;
  auto cb = std::move(on_close_);
  on_close_ = nullptr;
  lock.unlock();
  if (cb) cb();
  lock.lock();
}

}  // namespace kaisha::protocols
