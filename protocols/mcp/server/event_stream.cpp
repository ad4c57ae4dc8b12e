#include "protocols/mcp/server/event_stream.hpp"

#include <utility>

namespace kaisha::mcp {

bool EventStream::send(const json& message) {
  std::lock_guard lock(mu_);
  if (finished_) return false;
  std::string data = message.dump(-1, ' ', false, json::error_handler_t::replace);
  if (!resumable_) {
    if (writer_ && !writer_->send(data, "message")) writer_ = nullptr;
    return writer_ != nullptr;
  }
  uint64_t seq = next_seq_++;
  if (writer_ && !writer_->send(data, "message", id_ + ":" + std::to_string(seq))) writer_ = nullptr;
  kept_.emplace_back(seq, std::move(data));
  if (kept_.size() > kMaxKept) kept_.pop_front();
  return true;
}

void EventStream::finish() {
  std::lock_guard lock(mu_);
  finished_ = true;
  if (writer_) writer_->close();
  writer_ = nullptr;
}

void EventStream::detach() {
  std::lock_guard lock(mu_);
  if (writer_) writer_->close();
  writer_ = nullptr;
}

void EventStream::attach(const std::shared_ptr<protocols::SseWriter>& writer, uint64_t after_seq) {
  std::unique_lock lock(mu_);
  if (writer_ && writer_ != writer) writer_->close();
  for (const auto& [seq, data] : kept_)
    if (seq > after_seq) writer->send(data, "message", id_ + ":" + std::to_string(seq));
  if (finished_) {
    writer->close();
    writer_ = nullptr;
    return;
  }
  writer_ = writer;
  lock.unlock();  // on_close may run at once, and takes the lock
  writer->on_close([weak = weak_from_this(), w = writer.get()] {
    auto self = weak.lock();
    if (!self) return;
    std::function<void()> gone;
    {
      std::lock_guard relock(self->mu_);
      if (self->writer_.get() == w) self->writer_ = nullptr;
      if (!self->finished_) gone = std::exchange(self->on_disconnect_, nullptr);
    }
    if (gone) gone();
  });
}

void EventStream::prime(const std::shared_ptr<protocols::SseWriter>& writer, int64_t retry_ms) {
  std::string text;
  if (retry_ms > 0) text += "retry: " + std::to_string(retry_ms) + "\n";
  text += "id: " + id_ + ":0\ndata: \n\n";
  writer->send_raw(std::move(text));
}

void EventStream::on_disconnect(std::function<void()> f) {
  std::lock_guard lock(mu_);
  on_disconnect_ = std::move(f);
}

bool EventStream::finished() const {
  std::lock_guard lock(mu_);
  return finished_;
}

bool EventStream::connected() const {
  std::lock_guard lock(mu_);
  return writer_ && !writer_->closed();
}

std::optional<std::pair<std::string, uint64_t>> EventStream::parse_event_id(const std::string& id) {
  auto colon = id.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= id.size()) return std::nullopt;
  std::string seq = id.substr(colon + 1);
  if (seq.size() > 18 || seq.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::make_pair(id.substr(0, colon), std::stoull(seq));
}

}  // namespace kaisha::mcp
