#include "runtime/memory/memory_scoring.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::memory {

std::vector<std::string> lower_words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '\'' || c >= 0x80) {
      w += ascii_lower(static_cast<char>(c));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

double manual_importance(Importance i) {
  switch (i) {
    case Importance::critical:
      return 1.0;
    case Importance::high:
      return 0.75;
    case Importance::medium:
      return 0.5;
    case Importance::low:
      return 0.25;
  }
  return 0.5;
}

double type_importance(MemoryType t) {
  switch (t) {
    case MemoryType::fact:
      return 0.9;
    case MemoryType::reflection:
      return 0.7;
    case MemoryType::task:
      return 0.6;
    case MemoryType::observation:
      return 0.5;
    case MemoryType::tool_result:
      return 0.4;
    case MemoryType::conversation:
      return 0.3;
  }
  return 0.5;
}

double keyword_fraction(const std::string& content, const std::vector<std::string>& keywords) {
  if (keywords.empty()) return 0;
  const auto words = lower_words(content);
  const std::set<std::string> present(words.begin(), words.end());
  size_t hits = 0;
  for (const auto& k : keywords) {
    if (present.count(ascii_lower(k))) ++hits;
  }
  return static_cast<double>(hits) / static_cast<double>(keywords.size());
}

double importance_score(Importance manual, MemoryType type, const std::string& content,
                        const std::vector<std::string>& keywords) {
  const double length = std::min(1.0, static_cast<double>(lower_words(content).size()) / 100.0);
  return 0.4 * manual_importance(manual) + 0.3 * type_importance(type) + 0.15 * length +
         0.15 * keyword_fraction(content, keywords);
}

double recency_score(double age_seconds, double decay_days, DecayMode mode) {
  const double period = decay_days * 24 * 3600;
  if (period <= 0) return 1;
  const double lambda = (mode == DecayMode::half_life ? std::log(2.0) : 1.0) / period;
  return std::exp(-lambda * std::max(0.0, age_seconds));
}

double frequency_score(int64_t access_count, int64_t max_access_count) {
  if (max_access_count <= 0 || access_count <= 0) return 0;
  return std::log1p(static_cast<double>(access_count)) / std::log1p(static_cast<double>(max_access_count));
}

double retrieval_score(double r, double f, double i, double s, const ScoringWeights& w) {
  return w.recency * r + w.frequency * f + w.importance * i + w.similarity * s;
}

}  // namespace kaisha::memory
