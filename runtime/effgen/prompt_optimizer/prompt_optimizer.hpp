// PromptOptimizer: effGen's model-size-aware prompt optimizer
// φ = τ5 ∘ τ4 ∘ τ3 ∘ τ2 ∘ τ1 (paper §3.1, App. D). It rewrites a prompt for a
// model tier and reports what it did, so that a small model gets a shorter,
// more structured prompt before its call.
//
// Promises:
//  - Pure and deterministic: no I/O after construction, no model calls; the
//    same input, tier and options give the same output. Safe to share
//    between threads (all methods are const).
//  - With every stage disabled the output equals the input and the ratio is
//    exactly 1.
//  - The only hard limit is τ_prompt: with truncation enabled, an estimate
//    above it is cut to ≤ floor(0.9·τ_prompt); the tier's α is reported as a
//    target, never forced (effgen.md §21.1).
//  - The system prompt and the task are never cut in the structured forms
//    (PromptParts, ChatRequest); if they alone exceed the budget the report
//    says over_budget and the caller decides.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/effgen/prompt_optimizer/tier_profile.hpp"
#include "runtime/effgen/prompt_optimizer/optimizer_patterns.hpp"
#include "runtime/effgen/prompt_optimizer/token_estimate.hpp"

namespace kaisha::prompt {

struct OptimizerOptions {
  // Stage switches (paper D.9 keys). Unset means the tier's Table 18 default
  // (see enabled_by_default()); set means exactly that, for any tier.
  std::optional<bool> enable_compression;     // τ1
  std::optional<bool> enable_simplification;  // τ2
  std::optional<bool> enable_redundancy;      // τ3
  std::optional<bool> enable_bullets;         // τ4
  std::optional<bool> enable_truncation;      // τ5
  std::optional<int64_t> max_prompt_tokens;   // overrides the tier's τ_prompt
  TokenEstimateMode estimate_mode = TokenEstimateMode::average;
  int long_sentence_words = 20;      // τ2: split sentences longer than this
  double duplicate_threshold = 0.8;  // τ3: Jaccard similarity above this is a duplicate
  double truncation_safety = 0.9;    // τ5: cut to floor(this · τ_prompt)

  // Every stage off: the optimizer becomes the identity.
  static OptimizerOptions all_disabled();
};

struct StageFlags {
  bool compression = false;
  bool simplification = false;
  bool redundancy = false;
  bool bullets = false;
  bool truncation = false;
};

// What each stage did in one call.
struct StageCounts {
  int replacements = 0;         // τ1
  int sentences_split = 0;      // τ2
  int politeness_removed = 0;   // τ3
  int duplicates_removed = 0;   // τ3
  int bullets = 0;              // τ4
  int sentences_truncated = 0;  // τ5, plain text
  int examples_dropped = 0;     // τ5, structured
  int history_dropped = 0;      // τ5, structured (messages)
  int tools_summarized = 0;     // τ5, structured
  int tools_dropped = 0;        // τ5, structured
  bool truncated = false;       // τ5 removed anything
  bool over_budget = false;     // still above the budget after τ5
};

// The run metadata of one optimization (paper D.9 response.metadata).
struct OptimizationReport {
  ModelTier tier = ModelTier::medium;
  StageFlags stages;
  int64_t max_prompt_tokens = 0;   // τ_prompt in force
  double target_ratio = 1.0;       // the tier's α, for comparison only
  double original_tokens = 0;      // prompt_tokens_original (estimate)
  double optimized_tokens = 0;     // prompt_tokens_optimized (estimate)
  double compression_ratio = 1.0;  // optimized / original; 1 for an empty prompt
  StageCounts counts;

  // {"tier", "stages": {"compression": bool, ...}, "max_prompt_tokens",
  //  "target_compression_ratio", "prompt_tokens_original",
  //  "prompt_tokens_optimized", "compression_ratio", "counts": {...}}
  json to_json() const;
};

// Who wrote a text: instructions (system prompts, templates) lose every
// politeness phrase; the user's own request keeps "Please" (§21.33).
enum class TextRole { instruction, user };

struct TextOptimization {
  std::string text;
  OptimizationReport report;
};

// A prompt in the parts τ5 ranks (paper D.6): system prompt and task are
// always kept; tool descriptions may be shortened to their first sentence;
// examples are dropped first (last first); then history, oldest first.
struct PromptParts {
  std::string system;
  std::string task;
  std::vector<std::string> tools;     // one description each
  std::vector<std::string> examples;  // few-shot examples
  std::vector<std::string> history;   // oldest first

  // Non-empty sections joined by a blank line in the order system, tools
  // (one per line), examples (blank line between), history (one per line),
  // task.
  std::string render() const;
};

struct PartsOptimization {
  PromptParts parts;
  OptimizationReport report;
};

struct ChatOptimization {
  llm::ChatRequest request;
  OptimizationReport report;
};

// A run of prose or of fenced code (a "```" line through the next "```"
// line, or to the end when unclosed). The optimizer rewrites prose only.
struct TextSegment {
  std::string_view text;
  bool code = false;
};

// Segments of `text` in order; concatenated they give `text` back.
std::vector<TextSegment> split_code_fences(std::string_view text);

class PromptOptimizer {
 public:
  explicit PromptOptimizer(OptimizerPatterns patterns, OptimizerOptions options = {});

  // Loads the patterns from `path` (default_optimizer_patterns_path() when
  // empty); errors as load_optimizer_patterns().
  static Result<PromptOptimizer> from_file(const std::string& path = "", OptimizerOptions options = {});

  // Which stages run for `tier` under these options.
  StageFlags stages_for(ModelTier tier) const;
  // τ_prompt in force for `tier`.
  int64_t max_prompt_tokens(ModelTier tier) const;

  // φ on one text: τ1–τ4 on its prose (fenced code is left alone), then τ5
  // on the whole text (cut after the last whole sentence that fits).
  TextOptimization optimize(std::string_view text, ModelTier tier, TextRole role = TextRole::instruction) const;

  // τ1–τ4 on the system prompt (instruction) and the task (user); tools,
  // examples and history are not rewritten, only dropped or shortened by τ5.
  PartsOptimization optimize(const PromptParts& parts, ModelTier tier) const;

  // The same on a chat request, for use right before a small model's call:
  // system messages are the system prompt, the latest user message the task,
  // earlier messages the history, request.tools the tool descriptions.
  // Messages after the latest user message (the current ReAct turn) are
  // kept as they are. History is dropped a whole exchange at a time (an
  // assistant tool call with its tool results), so no tool result is left
  // without its call.
  ChatOptimization optimize(const llm::ChatRequest& request, ModelTier tier) const;

  const OptimizerPatterns& patterns() const { return patterns_; }
  const OptimizerOptions& options() const { return options_; }

 private:
  // τ1–τ4 on one text, adding to `counts`.
  std::string rewrite(std::string_view text, const StageFlags& stages, TextRole role, StageCounts& counts) const;
  OptimizationReport start_report(ModelTier tier) const;
  void finish_report(OptimizationReport& r, double original, double optimized) const;

  OptimizerPatterns patterns_;
  OptimizerOptions options_;
};

}  // namespace kaisha::prompt
