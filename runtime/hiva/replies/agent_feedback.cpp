#include "runtime/hiva/replies/agent_feedback.hpp"

#include <array>
#include <optional>
#include <vector>

#include "runtime/core/ascii_case.hpp"
#include "runtime/hiva/replies/reply_text.hpp"
#include "runtime/hiva/replies/tagged_reply.hpp"
#include "runtime/prompt/json_extract.hpp"

namespace kaisha::hiva {
namespace {

struct FeedbackField {
  const char* name;
  std::vector<std::string_view> words;
  std::string AgentFeedback::*member;
};

const std::array<FeedbackField, 3>& feedback_fields() {
  static const std::array<FeedbackField, 3> kFields = {{
      {"SYSTEM_PROMPT_FEEDBACK", {"system", "prompt", "feedback"}, &AgentFeedback::system_prompt},
      {"TOOL_FEEDBACK", {"tool", "feedback"}, &AgentFeedback::tool},
      {"OVERALL_FEEDBACK", {"overall", "feedback"}, &AgentFeedback::overall},
  }};
  return kFields;
}

// "None", "N/A", "-": the model says there is nothing to change.
std::string cleaned(std::string_view value) {
  std::string_view v = reply::strip_wrapping(value);
  std::string word = ascii_lower(v);
  while (!word.empty() && word.back() == '.') word.pop_back();
  if (word == "none" || word == "n/a" || word == "na" || word == "-" || word == "nothing") return "";
  return std::string(v);
}

// The key of a JSON object that names `f`: "TOOL_FEEDBACK", "tool feedback".
bool names_field(const std::string& key, const FeedbackField& f) {
  std::optional<size_t> end = reply::match_words(key, 0, f.words);
  return end && *end == key.size();
}

std::optional<AgentFeedback> from_json(std::string_view text, reply::Problems& problems) {
  if (text.find('{') == std::string_view::npos) return std::nullopt;
  Result<json> object = planning::extract_json(text, planning::JsonTop::object);
  if (!object || !object->is_object()) return std::nullopt;
  auto key_of = [&](const FeedbackField& f) -> const json* {
    for (auto it = object->begin(); it != object->end(); ++it)
      if (names_field(it.key(), f)) return &*it;
    return nullptr;
  };
  bool any = false;
  for (const FeedbackField& f : feedback_fields()) any = any || key_of(f) != nullptr;
  if (!any) return std::nullopt;  // an object of something else: read the text
  AgentFeedback out;
  for (const FeedbackField& f : feedback_fields()) {
    const json* value = key_of(f);
    if (value == nullptr)
      problems.add("no " + std::string(f.name));
    else if (value->is_string())
      out.*f.member = cleaned(value->get_ref<const std::string&>());
    else if (!value->is_null())
      problems.add(std::string(f.name) + " is not a string");
  }
  return out;
}

// More labels than any real reply has; the scan stops there, which keeps a
// pathological reply linear.
constexpr size_t kMaxLabels = 64;

struct Label {
  size_t field;
  size_t region_start;  // where the text before it ends
  size_t value_start;
};

std::vector<Label> labels(std::string_view text) {
  std::vector<Label> found;
  for (size_t i = 0; i < text.size(); ++i) {
    if (reply::is_word_char(text[i]) == false || (i > 0 && reply::is_word_char(text[i - 1]))) continue;
    for (size_t f = 0; f < feedback_fields().size(); ++f) {
      std::optional<size_t> end = reply::match_words(text, i, feedback_fields()[f].words);
      if (!end) continue;
      bool heading = reply::line_place(text, i) != reply::LinePlace::mid_line;
      std::optional<size_t> value = reply::after_separator(text, *end, heading);
      if (!value) continue;
      found.push_back({f, reply::label_region_start(text, i), *value});
      if (found.size() == kMaxLabels) return found;
      i = *value - 1;
      break;
    }
  }
  return found;
}

}  // namespace

Parsed<AgentFeedback> parse_agent_feedback(std::string_view raw) {
  reply::Problems problems("agent feedback");
  const std::string normalized = reply::normalize(raw, problems);
  // Labels inside <FEEDBACK> tags read the same; the tags are not text.
  const std::string text = reply::scan_tags(normalized, kFeedbackTag).without_tags;

  if (std::optional<AgentFeedback> json_fields = from_json(text, problems))
    return {std::move(*json_fields), problems.text(), false};

  std::vector<Label> found = labels(text);
  AgentFeedback out;
  std::array<size_t, 3> seen{};
  for (size_t k = 0; k < found.size(); ++k) {
    const Label& l = found[k];
    size_t end = k + 1 < found.size() ? found[k + 1].region_start : text.size();
    std::string value = cleaned(text.substr(l.value_start, end > l.value_start ? end - l.value_start : 0));
    std::string& slot = out.*feedback_fields()[l.field].member;
    ++seen[l.field];
    if (slot.empty()) slot = std::move(value);
  }
  for (size_t f = 0; f < feedback_fields().size(); ++f)
    if (seen[f] > 1)
      problems.add(std::string(feedback_fields()[f].name) + " appears " + std::to_string(seen[f]) +
                   " times; the first value is used");
  if (found.empty()) {
    std::string whole(reply::strip_fence(text));
    if (whole.empty())
      problems.add("the reply is empty");
    else
      problems.add(
          "no SYSTEM_PROMPT_FEEDBACK, TOOL_FEEDBACK or OVERALL_FEEDBACK; the whole reply is the overall feedback");
    out.overall = std::move(whole);
    return {std::move(out), problems.text(), true};
  }
  for (size_t f = 0; f < feedback_fields().size(); ++f)
    if (seen[f] == 0) problems.add("no " + std::string(feedback_fields()[f].name));
  return {std::move(out), problems.text(), false};
}

}  // namespace kaisha::hiva
