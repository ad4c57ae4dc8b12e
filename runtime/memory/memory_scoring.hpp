// effGen's long-term scoring (effgen.md §8.2, §23 item 37):
//   importance 𝓘 = 0.4·I_manual + 0.3·I_type + 0.15·min(1, words/100) + 0.15·keyword_fraction
//   score      = 0.3·R + 0.2·F + 0.3·𝓘 + 0.2·S
// with R = exp(−λ·Δt), F = log(1+access_count)/log(1+max_access_count) and S
// the cosine similarity to the query.
//
// Recency has two modes: half_life (λ = ln 2 / 7 days: an entry a week old
// scores 0.5, what `decay_halflife_days: 7` says) and paper_literal
// (λ = 1 / 7 days, the paper's formula: 0.3679 after a week).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/memory/memory_entry.hpp"

namespace kaisha::memory {

struct ScoringWeights {
  double recency = 0.30;
  double frequency = 0.20;
  double importance = 0.30;
  double similarity = 0.20;
};

enum class DecayMode { half_life, paper_literal };

double manual_importance(Importance i);  // CRITICAL 1.0, HIGH 0.75, MEDIUM 0.5, LOW 0.25
double type_importance(MemoryType t);    // FACT 0.9 … CONVERSATION 0.3
// Fraction of `keywords` that occur in `content` as whole words (case-insensitive).
double keyword_fraction(const std::string& content, const std::vector<std::string>& keywords);
double importance_score(Importance manual, MemoryType type, const std::string& content,
                        const std::vector<std::string>& keywords);

double recency_score(double age_seconds, double decay_days = 7, DecayMode mode = DecayMode::half_life);
double frequency_score(int64_t access_count, int64_t max_access_count);
double retrieval_score(double recency, double frequency, double importance, double similarity,
                       const ScoringWeights& w = {});

// Lower-cased whole words of `text` (letters, digits, apostrophes).
std::vector<std::string> lower_words(const std::string& text);

}  // namespace kaisha::memory
