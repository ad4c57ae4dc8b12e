#include "protocols/mcp/server/post_answer.hpp"

namespace kaisha::mcp {

bool PostAnswer::send(const json& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream_) return stream_->send(message);  // under the lock: order is kept
  if (json_) return false;                     // answered already; nowhere to go
  held_.push_back(message);
  arrived_.notify_all();
  return true;
}

void PostAnswer::respond(std::optional<json> response) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream_) {
    if (response) stream_->send(*response);
    stream_->finish();
    return;
  }
  response_ = std::move(response);
  arrived_.notify_all();
}

void PostAnswer::detach() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream_)
    stream_->detach();
  else
    detach_ = true;
}

std::optional<std::optional<json>> PostAnswer::wait_for_json(std::chrono::milliseconds wait) {
  if (wait.count() <= 0) return std::nullopt;  // always a stream
  std::unique_lock<std::mutex> lock(mu_);
  arrived_.wait_for(lock, wait, [&] { return response_.has_value() || !held_.empty(); });
  if (!response_ || !held_.empty()) return std::nullopt;
  json_ = true;
  return response_;
}

void PostAnswer::stream_to(std::shared_ptr<EventStream> stream) {
  std::lock_guard<std::mutex> lock(mu_);
  stream_ = std::move(stream);
  for (const json& m : held_) stream_->send(m);
  held_.clear();
  if (response_) {
    if (*response_) stream_->send(**response_);
    stream_->finish();
  }
  if (detach_) stream_->detach();
}

}  // namespace kaisha::mcp
