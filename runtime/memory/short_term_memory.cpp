#include "runtime/memory/short_term_memory.hpp"

#include <algorithm>

namespace kaisha::memory {

const char* role_name(StmRole r) {
  switch (r) {
    case StmRole::system:
      return "system";
    case StmRole::user:
      return "user";
    case StmRole::assistant:
      return "assistant";
    case StmRole::tool:
      return "tool";
  }
  return "user";
}

int64_t estimate_stm_tokens(const std::string& text) {
  return std::max<int64_t>(1, static_cast<int64_t>((text.size() + 3) / 4));
}

ShortTermMemory::ShortTermMemory(ShortTermConfig config, std::string prefix)
    : config_(config), prefix_(std::move(prefix)) {}

void ShortTermMemory::add(StmRole role, std::string content, double timestamp) {
  StmMessage m;
  m.role = role;
  m.content = std::move(content);
  m.timestamp = timestamp;
  add(std::move(m));
}

void ShortTermMemory::add(StmMessage m) {
  if (m.est_tokens == 0) m.est_tokens = estimate_stm_tokens(m.content);
  messages_.push_back(std::move(m));
  while (messages_.size() > config_.max_messages) {
    auto victim = std::find_if(messages_.begin(), messages_.end(),
                               [](const StmMessage& x) { return x.role != StmRole::system && !x.summary; });
    if (victim == messages_.end()) break;
    messages_.erase(victim);
  }
}

int64_t ShortTermMemory::total_tokens() const {
  int64_t t = 0;
  for (const auto& m : messages_) t += m.est_tokens;
  return t;
}

// An earlier summary is folded into the new one.
std::vector<size_t> ShortTermMemory::summarisable() const {
  std::vector<size_t> out;
  if (messages_.size() <= config_.keep_recent) return out;
  size_t end = messages_.size() - config_.keep_recent;
  while (end > 0 && messages_[end - 1].keep_with_next) --end;
  for (size_t i = 0; i < end; ++i)
    if (messages_[i].role != StmRole::system || messages_[i].summary) out.push_back(i);
  return out;
}

bool ShortTermMemory::needs_summary() const {
  const double limit = config_.summarization_threshold * static_cast<double>(config_.max_tokens);
  if (static_cast<double>(total_tokens()) < limit) return false;
  const auto idx = summarisable();
  // A lone earlier summary is not worth summarising again.
  return !(idx.empty() || (idx.size() == 1 && messages_[idx[0]].summary));
}

std::string ShortTermMemory::summary_prompt() const {
  std::string p = prefix_;
  for (size_t i : summarisable()) p += std::string("\n") + role_name(messages_[i].role) + ": " + messages_[i].content;
  return p;
}

SummaryEvent ShortTermMemory::apply_summary(const std::string& summary) {
  SummaryEvent ev;
  const auto idx = summarisable();
  if (idx.empty()) return ev;
  for (size_t i : idx) ev.original_tokens += messages_[i].est_tokens;
  StmMessage s;
  s.role = StmRole::system;
  s.summary = true;
  s.content = summary;
  s.est_tokens = estimate_stm_tokens(summary);
  s.timestamp = messages_[idx.back()].timestamp;
  ev.summarized_tokens = s.est_tokens;
  ev.messages_replaced = idx.size();
  ev.reduction_ratio = ev.original_tokens > 0
                           ? 1.0 - static_cast<double>(ev.summarized_tokens) / static_cast<double>(ev.original_tokens)
                           : 0;
  std::deque<StmMessage> kept;
  bool placed = false;
  for (size_t i = 0; i < messages_.size(); ++i) {
    if (std::binary_search(idx.begin(), idx.end(), i)) {
      if (!placed) kept.push_back(s), placed = true;
      continue;
    }
    kept.push_back(std::move(messages_[i]));
  }
  messages_ = std::move(kept);
  return ev;
}

std::vector<StmMessage> ShortTermMemory::context(size_t n) const {
  std::vector<StmMessage> out;
  const size_t first_recent = messages_.size() > n ? messages_.size() - n : 0;
  for (size_t i = 0; i < messages_.size(); ++i)
    if (i >= first_recent || messages_[i].role == StmRole::system) out.push_back(messages_[i]);
  return out;
}

}  // namespace kaisha::memory
