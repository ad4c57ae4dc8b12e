#include "protocols/http/sse_writer.hpp"

#include <chrono>

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
  {
    std::lock_guard lock(mu_);
    if (closing_ || ended_) return false;
    queue_.push_back(std::move(text));
  }
  cv_.notify_all();
  return true;
}

void SseWriter::close() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
}

void SseWriter::abort() {
  std::unique_lock lock(mu_);
  closing_ = true;
  ended_ = true;
  queue_.clear();
  fire_close_locked(lock);
  cv_.notify_all();
}

bool SseWriter::closed() const {
  std::lock_guard lock(mu_);
  return closing_ || ended_;
}

bool SseWriter::disconnected() const {
  std::lock_guard lock(mu_);
  return disconnected_;
}

void SseWriter::on_close(std::function<void()> callback) {
  std::unique_lock lock(mu_);
  on_close_ = std::move(callback);
  if (ended_ && !close_fired_) fire_close_locked(lock);
}

std::string SseWriter::take(int64_t wait_ms, bool& finished) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return !queue_.empty() || closing_ || ended_; });
  std::string out;
  while (!queue_.empty()) {
    out += queue_.front();
    queue_.pop_front();
  }
  finished = ended_ || (closing_ && out.empty());
  return out;
}

void SseWriter::mark_ended(bool disconnected) {
  std::unique_lock lock(mu_);
  if (disconnected && !ended_) disconnected_ = true;
  ended_ = true;
  closing_ = true;
  queue_.clear();
  fire_close_locked(lock);
  cv_.notify_all();
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
