#include "runtime/effgen/routing/complexity_analyzer.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "runtime/effgen/routing/requirement_counter.hpp"
#include "runtime/effgen/routing/text_scan.hpp"

namespace kaisha::routing {

namespace {

enum class Target : std::uint8_t { domain, tool, reasoning };

// One keyword phrase, split into words; `words[0]` is its index key.
struct Phrase {
  std::vector<std::string> words;
  Target target;
  std::uint32_t slot;  // index into domains / tools / reasoning levels
};

bool matches_at(const ScannedText& text, std::size_t at, const Phrase& p) {
  if (at + p.words.size() > text.words.size()) return false;
  for (std::size_t k = 1; k < p.words.size(); ++k) {
    const ScannedWord& w = text.words[at + k];
    if (!w.joined || w.text != p.words[k]) return false;
  }
  return true;
}

}  // namespace

struct ComplexityAnalyzer::Index {
  ComplexityWeights weights;
  RequirementProfile profile;
  std::vector<std::string> domain_names;
  std::vector<std::string> tool_names;
  std::vector<std::string> level_names;  // highest precedence first
  std::vector<double> level_scores;
  double reasoning_default = 5.0;
  // Built once, never resized afterwards: `by_first_word` keys point into
  // `phrases[i].words[0]`.
  std::vector<Phrase> phrases;
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> by_first_word;
};

namespace {

// Adds `extra` to `cats` (merging by name), checking each phrase has a word.
Status merge_custom(std::vector<KeywordCategory>& cats, const std::vector<KeywordCategory>& extra, const char* what) {
  for (const auto& e : extra) {
    if (e.name.empty()) return Error{"config", std::string(what) + ": a category has an empty name"};
    for (const auto& p : e.phrases) {
      if (phrase_words(p).empty()) {
        return Error{"config", std::string(what) + "." + e.name + ": keyword \"" + p +
                                   "\" has no letters or digits, so it can never match"};
      }
    }
    auto it = std::find_if(cats.begin(), cats.end(), [&](const KeywordCategory& c) { return c.name == e.name; });
    if (it == cats.end()) {
      cats.push_back(e);
    } else {
      it->phrases.insert(it->phrases.end(), e.phrases.begin(), e.phrases.end());
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ComplexityAnalyzer> ComplexityAnalyzer::create(const KeywordTables& tables, const AnalyzerOptions& options) {
  if (Status s = options.weights.validate(); !s) return s.error();
  const RequirementProfile* profile = tables.find_profile(options.requirement_profile);
  if (profile == nullptr) {
    std::string known;
    for (const auto& p : tables.requirement_profiles) known += (known.empty() ? "" : ", ") + p.name;
    return Error{"config", "unknown requirement profile '" + options.requirement_profile + "' (" + tables.source +
                               " defines: " + known + ")"};
  }
  std::vector<KeywordCategory> domains = tables.domains;
  std::vector<KeywordCategory> tools = tables.tool_categories;
  if (Status s = merge_custom(domains, options.custom_domains, "custom_domains"); !s) return s.error();
  if (Status s = merge_custom(tools, options.custom_tool_categories, "custom_tool_categories"); !s) {
    return s.error();
  }

  auto index = std::make_shared<Index>();
  index->weights = options.weights;
  index->profile = *profile;
  index->reasoning_default = tables.reasoning_default;
  auto add = [&](const std::string& phrase, Target target, std::size_t slot) {
    std::vector<std::string> words = phrase_words(phrase);
    if (!words.empty()) index->phrases.push_back({std::move(words), target, static_cast<std::uint32_t>(slot)});
  };
  for (std::size_t i = 0; i < domains.size(); ++i) {
    index->domain_names.push_back(domains[i].name);
    for (const auto& p : domains[i].phrases) add(p, Target::domain, i);
  }
  for (std::size_t i = 0; i < tools.size(); ++i) {
    index->tool_names.push_back(tools[i].name);
    for (const auto& p : tools[i].phrases) add(p, Target::tool, i);
  }
  for (std::size_t i = 0; i < tables.reasoning_levels.size(); ++i) {
    index->level_names.push_back(tables.reasoning_levels[i].name);
    index->level_scores.push_back(tables.reasoning_levels[i].score);
    for (const auto& p : tables.reasoning_levels[i].indicators) add(p, Target::reasoning, i);
  }
  for (std::size_t i = 0; i < index->phrases.size(); ++i) {
    index->by_first_word[index->phrases[i].words[0]].push_back(static_cast<std::uint32_t>(i));
  }
  return ComplexityAnalyzer(std::move(index));
}

Result<ComplexityAnalyzer> ComplexityAnalyzer::create(const AnalyzerOptions& options) {
  auto tables = default_keyword_tables();
  if (!tables) return tables.error();
  return create(**tables, options);
}

const ComplexityWeights& ComplexityAnalyzer::weights() const { return index_->weights; }
const std::string& ComplexityAnalyzer::requirement_profile() const { return index_->profile.name; }

ComplexityScore ComplexityAnalyzer::analyze(std::string_view query) const {
  const Index& ix = *index_;
  // One scan buffer per thread: analyze() stays const and allocation-free in
  // steady state (the router calls it once per query on a hot path).
  thread_local ScannedText text;
  scan_text(query, text);

  std::vector<bool> domain_hit(ix.domain_names.size(), false);
  std::vector<bool> tool_hit(ix.tool_names.size(), false);
  std::size_t best_level = ix.level_names.size();  // lower = higher precedence; size = none

  for (std::size_t at = 0; at < text.words.size(); ++at) {
    auto it = ix.by_first_word.find(text.words[at].text);
    if (it == ix.by_first_word.end()) continue;
    for (std::uint32_t pi : it->second) {
      const Phrase& p = ix.phrases[pi];
      if (!matches_at(text, at, p)) continue;
      switch (p.target) {
        case Target::domain:
          domain_hit[p.slot] = true;
          break;
        case Target::tool:
          tool_hit[p.slot] = true;
          break;
        case Target::reasoning:
          if (p.slot < best_level) best_level = p.slot;
          break;
      }
    }
  }

  ComplexityScore s;
  s.word_count = text.word_count;
  s.requirement_count = count_requirements(text).total(ix.profile);
  for (std::size_t i = 0; i < domain_hit.size(); ++i) {
    if (domain_hit[i]) s.domains_hit.push_back(ix.domain_names[i]);
  }
  for (std::size_t i = 0; i < tool_hit.size(); ++i) {
    if (tool_hit[i]) s.tool_categories_hit.push_back(ix.tool_names[i]);
  }
  s.length = length_factor(s.word_count);
  s.requirements = requirement_factor(s.requirement_count);
  s.domain = breadth_factor(s.domains_hit.size());
  s.tools = breadth_factor(s.tool_categories_hit.size());
  if (best_level < ix.level_names.size()) {
    s.reasoning = ix.level_scores[best_level];
    s.reasoning_level = ix.level_names[best_level];
  } else {
    s.reasoning = ix.reasoning_default;
  }
  return combine_factors(std::move(s), ix.weights);
}

}  // namespace kaisha::routing
