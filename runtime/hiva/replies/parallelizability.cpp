#include "runtime/hiva/replies/parallelizability.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <vector>

#include "runtime/core/ascii_case.hpp"
#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {
namespace {

constexpr int kMaxSubtasks = 100;

enum FieldId { kCan, kSubtasks, kCoordination, kBenefit };

struct Field {
  const char* name;
  std::vector<std::vector<std::string_view>> spellings;
};

const std::array<Field, 4>& fields() {
  static const std::array<Field, 4> kFields = {{
      {"CAN_PARALLELIZE", {{"can", "parallelize"}, {"can", "parallelise"}}},
      {"SUBTASKS_COUNT", {{"subtasks", "count"}, {"subtask", "count"}, {"subtasks"}}},
      {"COORDINATION_REQUIRED", {{"coordination", "required"}, {"coordination"}}},
      {"PARALLEL_BENEFIT", {{"parallel", "benefit"}}},
  }};
  return kFields;
}

// The text after each field's first label, up to the line end.
std::array<std::optional<std::string_view>, 4> values(std::string_view text) {
  std::array<std::optional<std::string_view>, 4> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!reply::is_word_char(text[i]) || (i > 0 && reply::is_word_char(text[i - 1]))) continue;
    for (size_t f = 0; f < fields().size(); ++f) {
      if (out[f]) continue;
      for (const std::vector<std::string_view>& words : fields()[f].spellings) {
        std::optional<size_t> end = reply::match_words(text, i, words);
        if (!end) continue;
        std::optional<size_t> v = reply::after_separator(text, *end, false);
        if (!v) continue;
        size_t eol = text.find('\n', *v);
        out[f] = text.substr(*v, eol == std::string_view::npos ? std::string_view::npos : eol - *v);
        break;
      }
    }
  }
  return out;
}

// The first run of letters or of digits in `value`, lower-cased.
std::string first_word(std::string_view value) {
  size_t b = 0;
  while (b < value.size() && !reply::is_word_char(value[b])) ++b;
  size_t e = b;
  bool digits = b < value.size() && value[b] >= '0' && value[b] <= '9';
  while (e < value.size() && reply::is_word_char(value[e]) && value[e] != '_' &&
         ((value[e] >= '0' && value[e] <= '9') == digits))
    ++e;
  return ascii_lower(value.substr(b, e - b));
}

std::optional<bool> read_bool(const std::string& w) {
  if (w == "true" || w == "yes" || w == "y" || w == "1") return true;
  if (w == "false" || w == "no" || w == "n" || w == "0") return false;
  return std::nullopt;
}

std::optional<Level> read_level(const std::string& w) {
  if (w == "high" || w == "true" || w == "yes" || w == "significant" || w == "strong") return Level::high;
  if (w == "medium" || w == "moderate") return Level::medium;
  if (w == "low" || w == "minimal" || w == "little" || w == "small") return Level::low;
  if (w == "none" || w == "false" || w == "no") return Level::none;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Level level) {
  switch (level) {
    case Level::none:
      return "none";
    case Level::low:
      return "low";
    case Level::medium:
      return "medium";
    case Level::high:
      return "high";
  }
  return "none";
}

double parallelizability_score(const Parallelizability& p) {
  if (!p.can_parallelize || p.subtasks < 2 || p.benefit == Level::none) return 0.0;
  double benefit = p.benefit == Level::high ? 1.0 : p.benefit == Level::medium ? 0.7 : 0.3;
  double structure = (std::min(p.subtasks, 5) - 1) / 4.0;
  double independence = p.coordination == Level::high ? 0.0 : p.coordination == Level::medium ? 0.5 : 1.0;
  return benefit * (0.5 + 0.25 * structure + 0.25 * independence);
}

Parsed<Parallelizability> parse_parallelizability(std::string_view raw) {
  reply::Problems problems("parallelizability");
  const std::string text = reply::normalize(raw, problems);
  std::array<std::optional<std::string_view>, 4> v = values(text);
  Parallelizability p;
  if (!v[kCan] && !v[kSubtasks] && !v[kCoordination] && !v[kBenefit]) {
    problems.add(reply::trim(text).empty() ? "the reply is empty"
                                           : "no CAN_PARALLELIZE, SUBTASKS_COUNT, COORDINATION_REQUIRED or "
                                             "PARALLEL_BENEFIT");
    problems.add("the score is 0");
    return {p, problems.text(), true};
  }
  bool defaulted = false;
  auto unreadable = [&](FieldId f, const std::string& word, const char* fallback) {
    defaulted = true;
    if (!v[f])
      problems.add("no " + std::string(fields()[f].name) + "; " + fallback);
    else
      problems.add(std::string(fields()[f].name) + " is " + reply::in_quotes(word.empty() ? *v[f] : word) + "; " +
                   fallback);
  };

  std::optional<int> subtasks;
  std::string word = v[kSubtasks] ? first_word(*v[kSubtasks]) : "";
  if (!word.empty() && word[0] >= '0' && word[0] <= '9')
    subtasks = word.size() > 3 ? kMaxSubtasks : std::min(std::stoi(word), kMaxSubtasks);
  std::optional<Level> benefit;
  if (v[kBenefit]) benefit = read_level(first_word(*v[kBenefit]));

  std::optional<bool> can = v[kCan] ? read_bool(first_word(*v[kCan])) : std::nullopt;
  if (can) {
    p.can_parallelize = *can;
  } else {
    p.can_parallelize = subtasks.value_or(0) >= 2 && benefit.value_or(Level::medium) != Level::none;
    unreadable(kCan, v[kCan] ? first_word(*v[kCan]) : "",
               p.can_parallelize ? "taken as True from the other fields" : "taken as False");
  }
  if (subtasks) {
    p.subtasks = *subtasks;
  } else {
    p.subtasks = p.can_parallelize ? 2 : 0;
    unreadable(kSubtasks, word, p.can_parallelize ? "taken as 2" : "taken as 0");
  }
  std::string coordination = v[kCoordination] ? first_word(*v[kCoordination]) : "";
  if (std::optional<Level> level = read_level(coordination))
    p.coordination = *level;
  else
    unreadable(kCoordination, coordination, "taken as Medium");
  if (benefit) {
    p.benefit = *benefit;
  } else {
    p.benefit = p.can_parallelize ? Level::medium : Level::none;
    unreadable(kBenefit, v[kBenefit] ? first_word(*v[kBenefit]) : "",
               p.can_parallelize ? "taken as Medium" : "taken as None");
  }
  p.score = parallelizability_score(p);
  return {p, problems.text(), defaulted};
}

std::string describe(const Parallelizability& p) {
  char score[16];
  std::snprintf(score, sizeof score, "%.2f", p.score);
  return std::string(score) + " (can parallelize: " + (p.can_parallelize ? "yes" : "no") +
         ", subtasks: " + std::to_string(p.subtasks) + ", coordination: " + std::string(to_string(p.coordination)) +
         ", benefit: " + std::string(to_string(p.benefit)) + ")";
}

}  // namespace kaisha::hiva
