#include "runtime/hiva/replies/reward_reply.hpp"

#include <optional>
#include <string>
#include <vector>

#include "runtime/core/ascii_case.hpp"
#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {
namespace {

constexpr size_t kMaxMentions = 64;  // a scan bound, as for the topology decision

struct Mention {
  RewardClass label;
  size_t at;
  reply::LinePlace place;
};

std::optional<RewardClass> word_at(std::string_view text, size_t i, size_t& end) {
  static const struct {
    std::string_view word;
    RewardClass label;
  } kWords[] = {{"positive", RewardClass::positive},
                {"neutral", RewardClass::neutral},
                {"critical", RewardClass::critical},
                {"negative", RewardClass::critical}};
  for (const auto& w : kWords) {
    std::optional<size_t> e = reply::match_words(text, i, {w.word});
    if (!e) continue;
    end = *e;
    return w.label;
  }
  return std::nullopt;
}

// "not critical", "non-critical", "non critical".
bool negated(std::string_view text, size_t at) {
  std::string before = ascii_lower(text.substr(at >= 5 ? at - 5 : 0, at >= 5 ? 5 : at));
  return before.ends_with("not ") || before.ends_with("non-") || before.ends_with("non ") || before.ends_with("non_");
}

std::vector<Mention> mentions(std::string_view text) {
  std::vector<Mention> found;
  for (size_t i = 0; i < text.size() && found.size() < kMaxMentions; ++i) {
    if (!reply::is_word_char(text[i]) || (i > 0 && reply::is_word_char(text[i - 1]))) continue;
    size_t end = i;
    std::optional<RewardClass> label = word_at(text, i, end);
    if (!label) continue;
    if (!negated(text, i)) found.push_back({*label, i, reply::line_place(text, i)});
    i = end - 1;
  }
  return found;
}

// "1", "**0**", "Reward: 1.", "r = 0".
std::optional<int> bare_digit(std::string_view text) {
  std::string_view t = reply::strip_wrapping(reply::strip_fence(text));
  size_t colon = t.find_first_of(":=");
  if (colon != std::string_view::npos && colon < 24) t = reply::strip_wrapping(t.substr(colon + 1));
  if (t.ends_with('.')) t.remove_suffix(1);
  t = reply::strip_wrapping(t);
  if (t == "0") return 0;
  if (t == "1") return 1;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(RewardClass c) {
  switch (c) {
    case RewardClass::positive:
      return "POSITIVE";
    case RewardClass::neutral:
      return "NEUTRAL";
    case RewardClass::critical:
      return "CRITICAL";
  }
  return "NEUTRAL";
}

Parsed<Reward> parse_reward(std::string_view raw) {
  reply::Problems problems("reward");
  const std::string text = reply::normalize(raw, problems);
  std::vector<Mention> all = mentions(text);
  std::vector<Mention> tier;
  for (reply::LinePlace place :
       {reply::LinePlace::labelled, reply::LinePlace::line_start, reply::LinePlace::mid_line}) {
    for (const Mention& m : all)
      if (m.place == place) tier.push_back(m);
    if (!tier.empty()) break;
  }
  if (!tier.empty()) {
    bool same = true;
    for (const Mention& m : tier) same = same && m.label == tier.front().label;
    if (same) {
      RewardClass label = tier.front().label;
      return {Reward{label, label == RewardClass::critical ? 0 : 1}, problems.text(), false};
    }
    std::string which;
    for (const Mention& m : tier)
      which += (which.empty() ? "" : ", ") + std::string(to_string(m.label)) + " at line " +
               std::to_string(reply::line_of(text, m.at));
    problems.add("ambiguous: " + which);
  } else if (std::optional<int> digit = bare_digit(text)) {
    return {Reward{std::nullopt, *digit}, problems.text(), false};
  } else {
    problems.add(reply::trim(text).empty() ? "the reply is empty" : "no POSITIVE, NEUTRAL or CRITICAL");
  }
  problems.add("the reward is 1");
  return {Reward{}, problems.text(), true};
}

}  // namespace kaisha::hiva
