#include "runtime/effgen/prompt_optimizer/prompt_optimizer.hpp"

#include <utility>

#include "runtime/effgen/prompt_optimizer/prompt_stages.hpp"
#include "runtime/effgen/prompt_optimizer/sentence_splitter.hpp"

namespace kaisha::prompt {

namespace {

// τ5's ranking over sized units (paper D.6). `fixed` (system prompt, task,
// current turn) is never touched. Removal order when over the budget:
// examples from the last one, history from the oldest unit, tool
// descriptions shortened to their first sentence (last tool first), then
// tools dropped (last first). The paper lists examples before history in
// priority but also says examples are "trimmed first"; the explicit rule wins.
struct TruncationPlan {
  std::vector<bool> keep_examples, keep_history, keep_tools, summarize_tools;
  bool over_budget = false;
};

struct TruncationInput {
  TextSize fixed;
  std::vector<TextSize> examples, history, tools, tool_summaries;
};

TruncationPlan plan_truncation(const TruncationInput& in, double budget, TokenEstimateMode mode) {
  TruncationPlan plan;
  plan.keep_examples.assign(in.examples.size(), true);
  plan.keep_history.assign(in.history.size(), true);
  plan.keep_tools.assign(in.tools.size(), true);
  plan.summarize_tools.assign(in.tools.size(), false);
  TextSize total = in.fixed;
  for (const auto& s : in.examples) total += s;
  for (const auto& s : in.history) total += s;
  for (const auto& s : in.tools) total += s;
  auto fits = [&] { return estimate_tokens(total, mode) <= budget; };
  for (size_t i = in.examples.size(); i-- > 0 && !fits();) {
    plan.keep_examples[i] = false;
    total -= in.examples[i];
  }
  for (size_t i = 0; i < in.history.size() && !fits(); ++i) {
    plan.keep_history[i] = false;
    total -= in.history[i];
  }
  for (size_t i = in.tools.size(); i-- > 0 && !fits();) {
    if (in.tool_summaries[i].chars >= in.tools[i].chars) continue;
    plan.summarize_tools[i] = true;
    total -= in.tools[i];
    total += in.tool_summaries[i];
  }
  for (size_t i = in.tools.size(); i-- > 0 && !fits();) {
    plan.keep_tools[i] = false;
    total -= plan.summarize_tools[i] ? in.tool_summaries[i] : in.tools[i];
  }
  plan.over_budget = !fits();
  return plan;
}

// A part's size plus the blank line that may separate it from the next, so
// that the sum over parts bounds the estimate of the rendered prompt.
TextSize part_size(std::string_view s) {
  TextSize t = measure(s);
  t.chars += 2;
  return t;
}

std::string first_sentence(std::string_view text) {
  auto s = sentences_of(text);
  return s.empty() ? std::string() : s.front();
}

template <class T>
std::vector<T> kept(const std::vector<T>& items, const std::vector<bool>& keep, int& dropped) {
  std::vector<T> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (keep[i])
      out.push_back(items[i]);
    else
      ++dropped;
  }
  return out;
}

void append_section(std::string& out, const std::string& section) {
  if (section.empty()) return;
  if (!out.empty()) out += "\n\n";
  out += section;
}

std::string join_lines(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (s.empty()) continue;
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

TextSize message_size(const llm::ChatMessage& m) {
  TextSize s = measure(m.content);
  for (const auto& c : m.tool_calls) {
    s += measure(c.name);
    s += measure(c.arguments);
  }
  return s;
}

TextSize tool_size(const llm::ToolSpec& t, std::string_view description) {
  TextSize s = measure(t.name);
  s += measure(description);
  s += measure(t.parameters.dump());
  return s;
}

}  // namespace

std::vector<TextSegment> split_code_fences(std::string_view text) {
  std::vector<TextSegment> out;
  size_t pos = 0, prose_start = 0;
  auto line_end = [&](size_t from) {
    size_t e = text.find('\n', from);
    return e == std::string_view::npos ? text.size() : e + 1;
  };
  auto is_fence = [&](size_t line) {
    size_t i = line;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    return text.substr(i, 3) == "```";
  };
  while (pos < text.size()) {
    if (!is_fence(pos)) {
      pos = line_end(pos);
      continue;
    }
    size_t close = line_end(pos);
    while (close < text.size() && !is_fence(close)) close = line_end(close);
    size_t end = close < text.size() ? line_end(close) : text.size();  // unclosed: code to the end
    if (pos > prose_start) out.push_back({text.substr(prose_start, pos - prose_start), false});
    out.push_back({text.substr(pos, end - pos), true});
    pos = prose_start = end;
  }
  if (prose_start < text.size() || out.empty()) out.push_back({text.substr(prose_start), false});
  return out;
}

OptimizerOptions OptimizerOptions::all_disabled() {
  OptimizerOptions o;
  o.enable_compression = o.enable_simplification = o.enable_redundancy = o.enable_bullets = o.enable_truncation = false;
  return o;
}

json OptimizationReport::to_json() const {
  return json{
      {"tier", to_string(tier)},
      {"stages",
       {{"compression", stages.compression},
        {"simplification", stages.simplification},
        {"redundancy", stages.redundancy},
        {"bullets", stages.bullets},
        {"truncation", stages.truncation}}},
      {"max_prompt_tokens", max_prompt_tokens},
      {"target_compression_ratio", target_ratio},
      {"prompt_tokens_original", original_tokens},
      {"prompt_tokens_optimized", optimized_tokens},
      {"compression_ratio", compression_ratio},
      {"counts",
       {{"replacements", counts.replacements},
        {"sentences_split", counts.sentences_split},
        {"politeness_removed", counts.politeness_removed},
        {"duplicates_removed", counts.duplicates_removed},
        {"bullets", counts.bullets},
        {"sentences_truncated", counts.sentences_truncated},
        {"examples_dropped", counts.examples_dropped},
        {"history_dropped", counts.history_dropped},
        {"tools_summarized", counts.tools_summarized},
        {"tools_dropped", counts.tools_dropped},
        {"truncated", counts.truncated},
        {"over_budget", counts.over_budget}}},
  };
}

std::string PromptParts::render() const {
  std::string out;
  append_section(out, system);
  append_section(out, join_lines(tools, "\n"));
  append_section(out, join_lines(examples, "\n\n"));
  append_section(out, join_lines(history, "\n"));
  append_section(out, task);
  return out;
}

PromptOptimizer::PromptOptimizer(OptimizerPatterns patterns, OptimizerOptions options)
    : patterns_(std::move(patterns)), options_(std::move(options)) {}

Result<PromptOptimizer> PromptOptimizer::from_file(const std::string& path, OptimizerOptions options) {
  auto patterns = load_optimizer_patterns(path.empty() ? default_optimizer_patterns_path() : path);
  if (!patterns) return patterns.error();
  return PromptOptimizer(std::move(*patterns), std::move(options));
}

StageFlags PromptOptimizer::stages_for(ModelTier tier) const {
  const TierProfile& p = tier_profile(tier);
  auto pick = [](const std::optional<bool>& set, StageSupport s) { return set ? *set : enabled_by_default(s); };
  return StageFlags{pick(options_.enable_compression, p.compression),
                    pick(options_.enable_simplification, p.simplification),
                    pick(options_.enable_redundancy, p.redundancy), pick(options_.enable_bullets, p.bullets),
                    pick(options_.enable_truncation, p.truncation)};
}

int64_t PromptOptimizer::max_prompt_tokens(ModelTier tier) const {
  return options_.max_prompt_tokens.value_or(tier_profile(tier).max_prompt_tokens);
}

std::string PromptOptimizer::rewrite(std::string_view text, const StageFlags& stages, TextRole role,
                                     StageCounts& counts) const {
  // Fenced code (``` ... ```) is data — JSON examples, code — whose bytes
  // matter: τ1–τ4 only rewrite the prose around it.
  std::string out;
  for (const auto& seg : split_code_fences(text)) {
    if (seg.code) {
      out += seg.text;
      continue;
    }
    std::string prose(seg.text);
    if (stages.compression) counts.replacements += compress_patterns(prose, patterns_);
    if (stages.simplification) counts.sentences_split += simplify_sentences(prose, options_.long_sentence_words);
    if (stages.redundancy) {
      auto r = remove_redundancy(prose, patterns_, role == TextRole::user, options_.duplicate_threshold);
      counts.politeness_removed += r.politeness_removed;
      counts.duplicates_removed += r.duplicates_removed;
    }
    if (stages.bullets) counts.bullets += format_bullets(prose, patterns_);
    out += prose;
  }
  return out;
}

OptimizationReport PromptOptimizer::start_report(ModelTier tier) const {
  OptimizationReport r;
  r.tier = tier;
  r.stages = stages_for(tier);
  r.max_prompt_tokens = max_prompt_tokens(tier);
  r.target_ratio = tier_profile(tier).target_ratio;
  return r;
}

void PromptOptimizer::finish_report(OptimizationReport& r, double original, double optimized) const {
  r.original_tokens = original;
  r.optimized_tokens = optimized;
  r.compression_ratio = original > 0 ? optimized / original : 1.0;
}

TextOptimization PromptOptimizer::optimize(std::string_view text, ModelTier tier, TextRole role) const {
  TextOptimization out;
  out.report = start_report(tier);
  StageCounts& c = out.report.counts;
  out.text = rewrite(text, out.report.stages, role, c);
  if (out.report.stages.truncation) {
    c.sentences_truncated =
        truncate_text(out.text, out.report.max_prompt_tokens, options_.estimate_mode, options_.truncation_safety);
    c.truncated = c.sentences_truncated > 0;
    c.over_budget = estimate_tokens(out.text, options_.estimate_mode) >
                        truncation_budget(out.report.max_prompt_tokens, options_.truncation_safety) &&
                    c.truncated;
  }
  finish_report(out.report, estimate_tokens(text, options_.estimate_mode),
                estimate_tokens(out.text, options_.estimate_mode));
  return out;
}

PartsOptimization PromptOptimizer::optimize(const PromptParts& parts, ModelTier tier) const {
  PartsOptimization out;
  out.report = start_report(tier);
  StageCounts& c = out.report.counts;
  out.parts = parts;
  out.parts.system = rewrite(parts.system, out.report.stages, TextRole::instruction, c);
  out.parts.task = rewrite(parts.task, out.report.stages, TextRole::user, c);

  const TokenEstimateMode mode = options_.estimate_mode;
  const int64_t limit = out.report.max_prompt_tokens;
  if (out.report.stages.truncation && estimate_tokens(out.parts.render(), mode) > static_cast<double>(limit)) {
    TruncationInput in;
    in.fixed = part_size(out.parts.system);
    in.fixed += part_size(out.parts.task);
    std::vector<std::string> summaries;
    for (const auto& e : out.parts.examples) in.examples.push_back(part_size(e));
    for (const auto& h : out.parts.history) in.history.push_back(part_size(h));
    for (const auto& t : out.parts.tools) {
      summaries.push_back(first_sentence(t));
      in.tools.push_back(part_size(t));
      in.tool_summaries.push_back(part_size(summaries.back()));
    }
    TruncationPlan plan = plan_truncation(in, truncation_budget(limit, options_.truncation_safety), mode);
    out.parts.examples = kept(out.parts.examples, plan.keep_examples, c.examples_dropped);
    out.parts.history = kept(out.parts.history, plan.keep_history, c.history_dropped);
    for (size_t i = 0; i < summaries.size(); ++i)
      if (plan.summarize_tools[i] && plan.keep_tools[i]) {
        out.parts.tools[i] = summaries[i];
        ++c.tools_summarized;
      }
    out.parts.tools = kept(out.parts.tools, plan.keep_tools, c.tools_dropped);
    c.over_budget = plan.over_budget;
    c.truncated = c.examples_dropped + c.history_dropped + c.tools_summarized + c.tools_dropped > 0;
  }
  finish_report(out.report, estimate_tokens(parts.render(), mode), estimate_tokens(out.parts.render(), mode));
  return out;
}

ChatOptimization PromptOptimizer::optimize(const llm::ChatRequest& request, ModelTier tier) const {
  ChatOptimization out;
  out.report = start_report(tier);
  out.request = request;
  StageCounts& c = out.report.counts;
  std::vector<llm::ChatMessage>& msgs = out.request.messages;
  const TokenEstimateMode mode = options_.estimate_mode;

  auto request_size = [&](const llm::ChatRequest& r) {
    TextSize s;
    for (const auto& m : r.messages) s += message_size(m);
    for (const auto& t : r.tools) s += tool_size(t, t.description);
    return s;
  };
  const double original = estimate_tokens(request_size(request), mode);

  size_t task = msgs.size();  // the latest user message, if any
  for (size_t i = msgs.size(); i-- > 0;)
    if (msgs[i].role == llm::Role::user) {
      task = i;
      break;
    }
  for (size_t i = 0; i < msgs.size(); ++i) {
    if (msgs[i].role == llm::Role::system)
      msgs[i].content = rewrite(msgs[i].content, out.report.stages, TextRole::instruction, c);
    else if (i == task)
      msgs[i].content = rewrite(msgs[i].content, out.report.stages, TextRole::user, c);
  }

  const int64_t limit = out.report.max_prompt_tokens;
  if (out.report.stages.truncation && estimate_tokens(request_size(out.request), mode) > static_cast<double>(limit)) {
    // History units: whole exchanges before the task, so that a tool result
    // never outlives the assistant call it answers.
    const size_t history_end = task == msgs.size() ? msgs.size() : task;
    std::vector<std::pair<size_t, size_t>> units;  // [first, last) message indexes
    TruncationInput in;
    for (size_t i = 0; i < msgs.size(); ++i) {
      if (msgs[i].role == llm::Role::system || i >= history_end) {
        in.fixed += message_size(msgs[i]);
        continue;
      }
      size_t end = i + 1;
      if (msgs[i].role == llm::Role::assistant && !msgs[i].tool_calls.empty())
        while (end < history_end && msgs[end].role == llm::Role::tool) ++end;
      TextSize s;
      for (size_t k = i; k < end; ++k) s += message_size(msgs[k]);
      units.emplace_back(i, end);
      in.history.push_back(s);
      i = end - 1;
    }
    std::vector<std::string> summaries;
    for (const auto& t : out.request.tools) {
      summaries.push_back(first_sentence(t.description));
      in.tools.push_back(tool_size(t, t.description));
      in.tool_summaries.push_back(tool_size(t, summaries.back()));
    }
    TruncationPlan plan = plan_truncation(in, truncation_budget(limit, options_.truncation_safety), mode);
    std::vector<bool> keep_msg(msgs.size(), true);
    for (size_t u = 0; u < units.size(); ++u)
      if (!plan.keep_history[u])
        for (size_t k = units[u].first; k < units[u].second; ++k) {
          keep_msg[k] = false;
          ++c.history_dropped;
        }
    std::vector<llm::ChatMessage> kept_msgs;
    for (size_t i = 0; i < msgs.size(); ++i)
      if (keep_msg[i]) kept_msgs.push_back(std::move(msgs[i]));
    msgs = std::move(kept_msgs);
    for (size_t i = 0; i < summaries.size(); ++i)
      if (plan.summarize_tools[i] && plan.keep_tools[i]) {
        out.request.tools[i].description = summaries[i];
        ++c.tools_summarized;
      }
    out.request.tools = kept(out.request.tools, plan.keep_tools, c.tools_dropped);
    c.over_budget = plan.over_budget;
    c.truncated = c.history_dropped + c.tools_summarized + c.tools_dropped > 0;
  }
  finish_report(out.report, original, estimate_tokens(request_size(out.request), mode));
  return out;
}

}  // namespace kaisha::prompt
