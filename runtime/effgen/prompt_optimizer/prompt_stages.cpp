#include "runtime/effgen/prompt_optimizer/prompt_stages.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "runtime/effgen/prompt_optimizer/phrase_matcher.hpp"
#include "runtime/effgen/prompt_optimizer/sentence_splitter.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/ascii_space.hpp"

namespace kaisha::prompt {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The word without surrounding punctuation, lowercased: "And," → "and".
std::string bare(std::string_view w) {
  size_t b = 0, e = w.size();
  while (b < e && !is_alnum(w[b]) && w[b] != '\'') ++b;
  while (e > b && !is_alnum(w[e - 1])) --e;
  return ascii_lower(w.substr(b, e - b));
}

void capitalize(std::string& s) {
  for (char& c : s) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return;
    }
    if (!ascii_space(c)) return;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

// What politeness removal can leave behind: "." or ", ." with no words.
bool only_punctuation(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return ascii_space(c) || c == '.' || c == ',' || c == '!' || c == ';'; });
}

// Markup lines ("<budgets>", "</budgets>", "# Title", "```", "}") repeat by
// design; they are structure, not duplicated content.
bool is_structural(std::string_view s) {
  s = trim(s);
  if (s.empty()) return true;
  if (s.front() == '<' || s.front() == '#' || s.front() == '`' || s.front() == '|') return true;
  return std::none_of(s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// Sentences as owned text plus the whitespace after each, so that stages can
// drop or rewrite sentences and glue the rest back together.
struct Piece {
  std::string text;
  std::string gap;
};

std::vector<Piece> pieces_of(std::string_view text) {
  std::vector<Piece> out;
  for (const auto& p : split_sentences(text)) out.push_back({std::string(p.text), std::string(p.gap)});
  return out;
}

// Removes piece i, keeping the stronger of its gap and the one before it so
// that a paragraph break survives.
void drop_piece(std::vector<Piece>& ps, size_t i) {
  if (i > 0) {
    auto newlines = [](const std::string& g) { return std::count(g.begin(), g.end(), '\n'); };
    if (newlines(ps[i].gap) > newlines(ps[i - 1].gap) || i + 1 == ps.size()) ps[i - 1].gap = ps[i].gap;
  }
  ps.erase(ps.begin() + static_cast<std::ptrdiff_t>(i));
}

std::string join(const std::vector<Piece>& ps) {
  std::string out;
  for (const auto& p : ps) out += p.text + p.gap;
  return out;
}

bool is_list_line(std::string_view line) {
  line = trim(line);
  if (line.size() >= 2 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') return true;
  if (line.substr(0, 3) == "\xE2\x80\xA2") return true;  // •
  size_t d = 0;
  while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
  return d > 0 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ';
}

// --- shingles -------------------------------------------------------------

std::vector<std::string> normalized_words(std::string_view s) {
  std::vector<std::string> out;
  for (auto w : words_of(s)) {
    std::string n;
    for (char c : w)
      if (is_alnum(c) || static_cast<unsigned char>(c) >= 0x80) n += ascii_lower(c);
    if (!n.empty()) out.push_back(std::move(n));
  }
  return out;
}

// Shingles are compared as 64-bit fingerprints, not strings: no allocation
// per shingle, and sorting/merging integers is several times cheaper. A
// character 5-shingle fits in 40 bits and is packed exactly; a word 3-shingle
// is a hash of its three words, whose collisions (~n²/2⁶⁴) do not matter here.
using Shingles = std::vector<uint64_t>;

uint64_t mix(uint64_t h) {  // splitmix64 finalizer
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

uint64_t pack(std::string_view s) {  // up to 7 bytes, with the length on top
  uint64_t v = 0;
  for (char c : s) v = (v << 8) | static_cast<unsigned char>(c);
  return v | (uint64_t{s.size()} << 56);
}

Shingles shingles(const std::vector<std::string>& words, bool by_words) {
  Shingles out;
  if (by_words) {
    std::vector<uint64_t> wh;
    wh.reserve(words.size());
    for (const auto& w : words) wh.push_back(std::hash<std::string_view>{}(w));
    for (size_t i = 0; i + 3 <= words.size(); ++i) out.push_back(mix(wh[i] ^ mix(wh[i + 1] ^ mix(wh[i + 2]))));
  } else {
    std::string joined;
    for (const auto& w : words) {
      if (!joined.empty()) joined += ' ';
      joined += w;
    }
    if (joined.size() < 5) {
      if (!joined.empty()) out.push_back(pack(joined));
    } else {
      out.reserve(joined.size() - 4);
      for (size_t i = 0; i + 5 <= joined.size(); ++i) out.push_back(pack(std::string_view(joined).substr(i, 5)));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double jaccard(const Shingles& a, const Shingles& b) {
  if (a.empty() && b.empty()) return 0.0;
  // Both are sorted sets: count the intersection in one merge pass.
  size_t common = 0;
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
    if (*i < *j)
      ++i;
    else if (*j < *i)
      ++j;
    else {
      ++common;
      ++i;
      ++j;
    }
  }
  double uni = static_cast<double>(a.size() + b.size() - common);
  return static_cast<double>(common) / uni;
}

// --- instructions -----------------------------------------------------------

bool starts_with_phrase(std::string_view lowered, std::string_view phrase) {
  if (lowered.substr(0, phrase.size()) != phrase) return false;
  return lowered.size() == phrase.size() || !is_alnum(lowered[phrase.size()]);
}

// Drops `n` characters and then any ',' and spaces.
std::string_view skip(std::string_view s, size_t n) {
  s.remove_prefix(std::min(n, s.size()));
  while (!s.empty() && (s.front() == ',' || ascii_space(s.front()))) s.remove_prefix(1);
  return s;
}

bool contains(const std::vector<std::string>& list, const std::string& w) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

struct Instruction {
  std::string header;
  std::string body;
};

std::optional<Instruction> as_instruction(std::string_view sentence, const OptimizerPatterns& p) {
  std::string_view s = trim(sentence);
  if (s.empty() || s.back() == '?') return std::nullopt;
  while (!s.empty() && (s.back() == '.' || s.back() == '!')) s.remove_suffix(1);
  Instruction ins;
  bool forced = false;
  for (bool changed = true; changed && !s.empty();) {
    changed = false;
    std::string l = ascii_lower(s);
    for (const auto& lead : p.instruction_leads) {
      if (starts_with_phrase(l, ascii_lower(lead.lead))) {
        if (!lead.header.empty()) ins.header = lead.header;
        s = skip(s, lead.lead.size());
        forced = changed = true;
        break;
      }
    }
    if (changed) continue;
    for (const auto& seq : p.sequence_words) {
      if (starts_with_phrase(l, seq)) {
        s = skip(s, seq.size());
        changed = true;
        break;
      }
    }
    if (changed) continue;
    auto words = words_of(s);
    if (!words.empty() && contains(p.sequence_clauses, bare(words[0]))) {
      size_t comma = s.find(',');
      if (comma != std::string_view::npos) {
        auto rest = words_of(s.substr(comma + 1));
        if (!rest.empty() && contains(p.instruction_verbs, bare(rest[0]))) {
          s = skip(s, comma + 1);
          changed = true;
        }
      }
    }
  }
  auto words = words_of(s);
  if (words.empty()) return std::nullopt;
  if (!forced && !contains(p.instruction_verbs, bare(words[0]))) {
    // "If the answer is unclear, ask." is an instruction with its condition.
    static constexpr std::array<std::string_view, 6> kConditions = {"if",     "when",  "before",
                                                                    "unless", "while", "whenever"};
    size_t comma = s.find(',');
    bool conditional = std::find(kConditions.begin(), kConditions.end(), bare(words[0])) != kConditions.end() &&
                       comma != std::string_view::npos;
    if (!conditional) return std::nullopt;
    auto rest = words_of(s.substr(comma + 1));
    if (rest.empty() || !contains(p.instruction_verbs, bare(rest[0]))) return std::nullopt;
  }
  ins.body = std::string(s);
  capitalize(ins.body);
  return ins;
}

// τ4 on one paragraph; `bullets` counts what it wrote.
std::string bulletize_block(std::string_view block, const OptimizerPatterns& p, int& bullets) {
  size_t line_start = 0;
  while (line_start <= block.size()) {
    size_t nl = block.find('\n', line_start);
    std::string_view line = trim(block.substr(line_start, nl == std::string_view::npos ? block.npos : nl - line_start));
    // Lists, markup, JSON and lead-ins ("Rules:") are already structured.
    if (is_list_line(line) || line.find_first_of("{}[]<>|#\"`*", 0) == 0 || (!line.empty() && line.back() == ':'))
      return std::string(block);
    if (nl == std::string_view::npos) break;
    line_start = nl + 1;
  }
  std::vector<std::string> sentences = sentences_of(block);
  std::vector<std::optional<Instruction>> kinds;
  int n_instructions = 0;
  for (const auto& s : sentences) {
    kinds.push_back(as_instruction(s, p));
    if (kinds.back()) ++n_instructions;
  }
  if (n_instructions < 2) return std::string(block);

  std::string prose, header;
  std::vector<std::string> items;
  for (size_t i = 0; i < sentences.size(); ++i) {
    if (kinds[i]) {
      if (header.empty()) header = kinds[i]->header;
      std::string l = ascii_lower(kinds[i]->body);
      bool seen = std::any_of(items.begin(), items.end(), [&](const std::string& it) { return ascii_lower(it) == l; });
      if (!seen) items.push_back(kinds[i]->body);
    } else if (items.empty()) {
      prose += (prose.empty() ? "" : " ") + sentences[i];
    } else {
      std::string extra(trim(sentences[i]));
      while (!extra.empty() && extra.back() == '.') extra.pop_back();
      items.back() += ". " + extra;
    }
  }
  if (header.empty()) header = "Instructions:";
  std::string out = prose.empty() ? header : prose + " " + header;
  for (const auto& it : items) out += "\n- " + it;
  bullets += static_cast<int>(items.size());
  return out;
}

}  // namespace

int compress_patterns(std::string& text, const OptimizerPatterns& patterns) {
  int changes = 0;
  for (const auto& pair : patterns.compression) changes += replace_phrase(text, pair.pattern, pair.replacement);
  for (const auto& pair : patterns.custom) changes += replace_phrase(text, pair.pattern, pair.replacement);
  return changes;
}

int simplify_sentences(std::string& text, int max_words) {
  static constexpr std::array<std::string_view, 5> kConj = {"and", "but", "or", "so", "because"};
  std::vector<Piece> ps = pieces_of(text);
  int splits = 0;
  for (auto& piece : ps) {
    auto words = words_of(piece.text);
    if (static_cast<int>(words.size()) <= max_words) continue;
    double mid = static_cast<double>(words.size()) / 2.0;
    std::optional<size_t> best;
    for (size_t i = 1; i < words.size(); ++i) {
      if (std::find(kConj.begin(), kConj.end(), bare(words[i])) == kConj.end()) continue;
      if (!best || std::abs(static_cast<double>(i) - mid) < std::abs(static_cast<double>(*best) - mid)) best = i;
    }
    if (!best) continue;
    size_t at = static_cast<size_t>(words[*best].data() - piece.text.data());
    std::string first = piece.text.substr(0, at);
    while (!first.empty() &&
           (ascii_space(first.back()) || first.back() == ',' || first.back() == ';' || first.back() == ':'))
      first.pop_back();
    std::string second = piece.text.substr(at);
    capitalize(second);
    piece.text = first + ". " + second;
    ++splits;
  }
  if (splits > 0) text = join(ps);
  return splits;
}

double shingle_similarity(std::string_view a, std::string_view b) {
  auto wa = normalized_words(a), wb = normalized_words(b);
  bool by_words = wa.size() >= 3 && wb.size() >= 3;
  return jaccard(shingles(wa, by_words), shingles(wb, by_words));
}

RedundancyCounts remove_redundancy(std::string& text, const OptimizerPatterns& patterns, bool user_text,
                                   double threshold) {
  RedundancyCounts counts;
  for (const auto& phrase : patterns.politeness) {
    if (user_text && phrase.keep_in_user_text) continue;
    counts.politeness_removed += replace_phrase(text, phrase.phrase, "");
  }
  std::vector<Piece> ps = pieces_of(text);
  // A kept sentence: its words, word 3-shingles, and (only when a short
  // sentence must be compared with it) character 5-shingles.
  struct Kept {
    std::vector<std::string> words;
    Shingles by_word;
    std::optional<Shingles> by_char;
    const Shingles& chars() {
      if (!by_char) by_char = shingles(words, false);
      return *by_char;
    }
  };
  std::vector<Kept> kept;
  bool changed = false;
  for (size_t i = 0; i < ps.size();) {
    if (ps[i].text.empty()) {
      ++i;
      continue;
    }
    if (only_punctuation(ps[i].text)) {
      drop_piece(ps, i);
      changed = true;
      continue;
    }
    if (is_structural(ps[i].text)) {
      ++i;
      continue;
    }
    // A sentence with nothing before it to repeat and nothing after it that
    // could repeat it (a one-sentence text) needs no shingles.
    if (kept.empty() && i + 1 == ps.size()) break;
    Kept mine{normalized_words(ps[i].text), {}, std::nullopt};
    mine.by_word = shingles(mine.words, true);
    bool duplicate = false;
    for (size_t k = 0; k < kept.size() && !duplicate; ++k) {
      const bool use_words = mine.words.size() >= 3 && kept[k].words.size() >= 3;
      const auto& a = use_words ? mine.by_word : mine.chars();
      const auto& b = use_words ? kept[k].by_word : kept[k].chars();
      // Jaccard is at most min/max of the set sizes: skip pairs that cannot reach the threshold.
      const double lo = double(std::min(a.size(), b.size()));
      const double hi = double(std::max(a.size(), b.size()));
      if (hi > 0 && lo / hi <= threshold) continue;
      duplicate = jaccard(a, b) > threshold;
    }
    if (duplicate) {
      drop_piece(ps, i);
      ++counts.duplicates_removed;
      changed = true;
      continue;
    }
    kept.push_back(std::move(mine));
    ++i;
  }
  if (changed) text = join(ps);
  return counts;
}

int format_bullets(std::string& text, const OptimizerPatterns& patterns) {
  // Blocks are separated by blank lines; the separators are kept verbatim.
  std::string out;
  int bullets = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t brk = std::string::npos;
    for (size_t i = text.find('\n', pos); i != std::string::npos; i = text.find('\n', i + 1)) {
      size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
      if (j < text.size() && text[j] == '\n') {
        brk = i;
        break;
      }
    }
    size_t block_end = brk;
    if (brk == std::string::npos) {  // the last block: its trailing whitespace is a separator too
      block_end = text.size();
      while (block_end > pos && ascii_space(text[block_end - 1])) --block_end;
    }
    size_t next = block_end;
    while (next < text.size() && ascii_space(text[next])) ++next;
    std::string_view block(text.data() + pos, block_end - pos);
    out += bulletize_block(block, patterns, bullets);
    out.append(text, block_end, next - block_end);
    pos = next;
  }
  if (bullets > 0) text = std::move(out);
  return bullets;
}

double truncation_budget(int64_t max_tokens, double safety) {
  return std::floor(safety * static_cast<double>(max_tokens));
}

int truncate_text(std::string& text, int64_t max_tokens, TokenEstimateMode mode, double safety) {
  if (estimate_tokens(text, mode) <= static_cast<double>(max_tokens)) return 0;
  const double budget = truncation_budget(max_tokens, safety);
  auto pieces = split_sentences(text);
  size_t total = 0;
  for (const auto& p : pieces) total += p.text.empty() ? 0 : 1;
  TextSize size;
  size_t keep_end = 0;  // byte offset just past the last sentence that fits
  size_t kept = 0;
  for (const auto& p : pieces) {
    TextSize next = size;
    next += measure(p.text);
    if (estimate_tokens(next, mode) > budget) break;
    if (!p.text.empty()) {
      keep_end = static_cast<size_t>(p.text.data() - text.data()) + p.text.size();
      ++kept;
    }
    next += measure(p.gap);
    size = next;
  }
  if (kept == 0) {
    // Not even one sentence fits: cut the first one between words.
    TextSize s;
    for (auto w : words_of(text)) {
      TextSize n = s;
      n += measure(w);
      n.chars += s.words > 0 ? 1 : 0;  // the space before the word
      if (estimate_tokens(n, mode) > budget) break;
      s = n;
      keep_end = static_cast<size_t>(w.data() - text.data()) + w.size();
    }
  }
  text.resize(keep_end);
  return static_cast<int>(total - kept);
}

}  // namespace kaisha::prompt
