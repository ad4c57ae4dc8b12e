// The five text transformations τ1–τ5 of effGen's prompt optimizer (paper
// §3.1, App. D.2–D.6), each a plain function on a string so that it can be
// tested and ablated alone. PromptOptimizer composes them; most callers want
// that instead.
#pragma once

#include <string>
#include <string_view>

#include "runtime/effgen/prompt_optimizer/optimizer_patterns.hpp"
#include "runtime/effgen/prompt_optimizer/token_estimate.hpp"

namespace kaisha::prompt {

// τ1 (Algorithm 4). Applies patterns.compression then patterns.custom, each
// replaced everywhere, case-insensitively on word boundaries (see
// replace_phrase() for capitalization and how removals tidy up). Returns the
// number of replacements.
int compress_patterns(std::string& text, const OptimizerPatterns& patterns);

// τ2 (Algorithm 5). Every sentence of more than `max_words` words is split
// once, at the conjunction {and, but, or, so, because} whose word index i is
// closest to n/2 (ties: the earlier one; i = 0 is never chosen). The first
// part gets a '.', the conjunction starts the second part, capitalized;
// everything else is left byte for byte. Returns the number of splits.
int simplify_sentences(std::string& text, int max_words = 20);

// Word-shingle Jaccard similarity of two sentences (paper Eq. 10): word
// 3-grams of the lowercased words with punctuation stripped, or character
// 5-grams of that normalized text when either sentence has fewer than three
// words (the shingle size is unspecified in the paper; effgen.md §2.2).
double shingle_similarity(std::string_view a, std::string_view b);

struct RedundancyCounts {
  int politeness_removed = 0;
  int duplicates_removed = 0;
};

// τ3. Removes the politeness phrases (those marked keep_in_user_text stay
// when `user_text`), then every sentence whose similarity to an earlier kept
// sentence exceeds `threshold` (the first occurrence is kept), and sentences
// left as bare punctuation. Markup lines ("<tag>", "</tag>", "# Heading",
// "```", "}") are structure and never count as duplicates.
RedundancyCounts remove_redundancy(std::string& text, const OptimizerPatterns& patterns, bool user_text,
                                   double threshold = 0.8);

// τ4 (Algorithm 6). Paragraphs (blocks between blank lines) that hold two or
// more instruction sentences become: the descriptive sentences before the
// first instruction, a header ("Your task:" from a lead such as "Your task
// is to", else "Instructions:"), then one "- Instruction" line per distinct
// instruction. A sentence is an instruction when, after dropping sequencing
// words ("Then") and sequencing clauses ("After gathering information,"),
// it starts with an instruction lead or verb of `patterns`. Descriptive
// sentences after the first instruction are appended to the bullet before
// them. Blocks that are already structured are left alone: any line that is
// a list item, starts with markup or JSON ({ } [ ] < > | # " ` *) or ends
// with ':'. Returns the number of bullets written.
int format_bullets(std::string& text, const OptimizerPatterns& patterns);

// τ5 on one text (Eq. 11). When estimate_tokens(text) > max_tokens, keeps
// the longest run of whole leading sentences whose estimate is ≤
// floor(safety · max_tokens) (0.9·512 → 460); if not even the first sentence
// fits, it is cut at a word boundary. Returns the number of sentences
// dropped (a cut sentence counts), 0 when nothing was cut.
int truncate_text(std::string& text, int64_t max_tokens, TokenEstimateMode mode = TokenEstimateMode::average,
                  double safety = 0.9);

// floor(safety · max_tokens): the budget τ5 cuts to.
double truncation_budget(int64_t max_tokens, double safety = 0.9);

}  // namespace kaisha::prompt
