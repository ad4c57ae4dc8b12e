#include "runtime/hiva/replies/topology_choice.hpp"

#include <array>
#include <optional>
#include <vector>

#include "runtime/core/ascii_case.hpp"
#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {
namespace {

struct Op {
  TopologyChoice choice;
  std::vector<std::string_view> words;
};

const std::array<Op, 5>& ops() {
  static const std::array<Op, 5> kOps = {{
      {TopologyChoice::add_parallel, {"add", "parallel"}},
      {TopologyChoice::add_serial, {"add", "serial"}},
      {TopologyChoice::remove_successor, {"remove", "successor"}},
      {TopologyChoice::connect_to_aggregator, {"connect", "to", "aggregator"}},
      {TopologyChoice::no_change, {"no", "change"}},
  }};
  return kOps;
}

// More operations than any real reply names; the scan stops there, which
// keeps a pathological reply linear.
constexpr size_t kMaxCandidates = 64;

struct Candidate {
  TopologyChoice choice;
  size_t at;
  size_t argument_start;
  reply::LinePlace place;
};

std::vector<Candidate> candidates(std::string_view text) {
  std::vector<Candidate> found;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!reply::is_word_char(text[i]) || (i > 0 && reply::is_word_char(text[i - 1]))) continue;
    for (const Op& op : ops()) {
      std::optional<size_t> end = reply::match_words(text, i, op.words);
      if (!end) continue;
      std::optional<size_t> arg = reply::after_separator(text, *end, true);
      if (!arg && *end < text.size() && text[*end] == '(') arg = *end + 1;
      if (!arg) break;
      found.push_back({op.choice, i, *arg, reply::line_place(text, i)});
      if (found.size() == kMaxCandidates) return found;
      i = *end - 1;
      break;
    }
  }
  return found;
}

std::string_view line_from(std::string_view text, size_t start) {
  size_t eol = text.find('\n', start);
  return text.substr(start, eol == std::string_view::npos ? std::string_view::npos : eol - start);
}

std::string argument_at(std::string_view text, size_t start, TopologyChoice choice) {
  std::string_view rest = reply::trim(line_from(text, start));
  // "ADD_SERIAL:\n  A checker agent": the next non-blank line.
  for (size_t eol = text.find('\n', start); rest.empty() && eol != std::string_view::npos;
       eol = text.find('\n', eol + 1))
    rest = reply::trim(line_from(text, eol + 1));
  if (rest.ends_with(')') && rest.find('(') == std::string_view::npos) rest.remove_suffix(1);  // "NO_CHANGE(reason)"
  rest = reply::strip_wrapping(rest);
  if (choice == TopologyChoice::remove_successor)
    while (!rest.empty() && (rest.back() == '.' || rest.back() == ','))
      rest = reply::strip_wrapping(rest.substr(0, rest.size() - 1));
  return std::string(rest);
}

// "least_visited", "least visited successor" / "2", "#2", "index 2" / anything else is an id.
void read_target(TopologyReply& d) {
  std::string_view a = d.argument;
  if (reply::match_words(a, 0, {"least", "visited"})) {
    d.target = RemoveTarget::least_visited;
    return;
  }
  std::string_view digits = a;
  if (digits.starts_with('#')) digits.remove_prefix(1);
  if (std::optional<size_t> end = reply::match_words(digits, 0, {"index"})) digits = reply::trim(digits.substr(*end));
  if (!digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    d.target = RemoveTarget::index;
    d.target_index = std::stoul(std::string(digits));
    return;
  }
  d.target = RemoveTarget::id;
  if (std::optional<size_t> end = reply::match_words(a, 0, {"id"})) {  // "id: agent_3"
    if (std::optional<size_t> v = reply::after_separator(a, *end, false))
      d.argument = std::string(reply::strip_wrapping(a.substr(*v)));
  }
}

std::string listed(const std::vector<Candidate>& tier, std::string_view text) {
  std::string out;
  for (const Candidate& c : tier)
    out += (out.empty() ? "" : ", ") + std::string(to_string(c.choice)) + " at line " +
           std::to_string(reply::line_of(text, c.at));
  return out;
}

}  // namespace

std::string_view to_string(TopologyChoice choice) {
  switch (choice) {
    case TopologyChoice::add_parallel:
      return "ADD_PARALLEL";
    case TopologyChoice::add_serial:
      return "ADD_SERIAL";
    case TopologyChoice::remove_successor:
      return "REMOVE_SUCCESSOR";
    case TopologyChoice::connect_to_aggregator:
      return "CONNECT_TO_AGGREGATOR";
    case TopologyChoice::no_change:
      return "NO_CHANGE";
  }
  return "NO_CHANGE";
}

Parsed<TopologyReply> parse_topology_decision(std::string_view raw) {
  reply::Problems problems("topology decision");
  const std::string text = reply::normalize(raw, problems);
  std::vector<Candidate> all = candidates(text);
  auto refuse = [&](std::string why) {
    problems.add(std::move(why));
    problems.add("the decision is NO_CHANGE");
    return Parsed<TopologyReply>{TopologyReply{}, problems.text(), true};
  };
  if (all.empty())
    return refuse(reply::trim(text).empty() ? "the reply is empty"
                                            : "no ADD_PARALLEL, ADD_SERIAL, REMOVE_SUCCESSOR, "
                                              "CONNECT_TO_AGGREGATOR or NO_CHANGE");
  std::vector<Candidate> tier;
  for (reply::LinePlace place :
       {reply::LinePlace::labelled, reply::LinePlace::line_start, reply::LinePlace::mid_line}) {
    for (const Candidate& c : all)
      if (c.place == place) tier.push_back(c);
    if (!tier.empty()) break;
  }
  for (const Candidate& c : tier)
    if (c.choice != tier.front().choice) return refuse("ambiguous: " + listed(tier, text));

  TopologyReply d;
  d.choice = tier.front().choice;
  d.argument = argument_at(text, tier.front().argument_start, d.choice);
  if ((d.choice == TopologyChoice::add_parallel || d.choice == TopologyChoice::add_serial) && d.argument.empty())
    return refuse(std::string(to_string(d.choice)) + " has no agent description");
  if (d.choice == TopologyChoice::remove_successor) {
    if (d.argument.empty()) return refuse("REMOVE_SUCCESSOR names no successor");
    read_target(d);
    if (d.argument.empty()) return refuse("REMOVE_SUCCESSOR names no successor");
  }
  return {std::move(d), problems.text(), false};
}

}  // namespace kaisha::hiva
