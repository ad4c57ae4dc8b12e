#include "runtime/hiva/replies/tagged_reply.hpp"

#include <vector>

#include "runtime/hiva/replies/reply_text.hpp"

namespace kaisha::hiva {
namespace {

std::string tag(std::string_view name) { return "<" + std::string(name) + ">"; }

std::string_view content(std::string_view text, const reply::TagBlock& b) {
  return reply::strip_fence(text.substr(b.content_begin, b.content_end - b.content_begin));
}

}  // namespace

Parsed<std::string> parse_feedback(std::string_view raw) {
  reply::Problems problems("feedback");
  const std::string text = reply::normalize(raw, problems);
  reply::TagScan scan = reply::scan_tags(text, kFeedbackTag);
  std::vector<std::string_view> parts;
  size_t unclosed = 0, unopened = 0;
  for (const reply::TagBlock& b : scan.blocks) {
    if (!b.opened) {
      ++unopened;
      continue;  // the text before a stray closing tag is not known to be feedback
    }
    if (!b.closed) ++unclosed;
    if (std::string_view c = content(text, b); !c.empty()) parts.push_back(c);
  }
  if (unclosed > 0) problems.add("the " + tag(kFeedbackTag) + " tag is not closed (the reply may be cut off)");
  if (unopened > 0) problems.add("a </FEEDBACK> has no opening tag");
  if (parts.size() > 1) problems.add(std::to_string(parts.size()) + " feedback blocks, joined");
  if (!parts.empty()) {
    std::string joined;
    for (std::string_view p : parts) joined += (joined.empty() ? "" : "\n\n") + std::string(p);
    return {std::move(joined), problems.text(), false};
  }
  std::string whole(reply::strip_fence(scan.without_tags));
  if (whole.empty())
    problems.add("the reply is empty");
  else if (scan.blocks.empty())
    problems.add("no " + tag(kFeedbackTag) + " tag; the whole reply is the feedback");
  else
    problems.add("the " + tag(kFeedbackTag) + " tag is empty; the rest of the reply is the feedback");
  return {std::move(whole), problems.text(), true};
}

Parsed<std::optional<std::string>> parse_improved_variable(std::string_view raw) {
  reply::Problems problems("prompt update");
  const std::string text = reply::normalize(raw, problems);
  reply::TagScan scan = reply::scan_tags(text, kImprovedVariableTag);
  std::optional<std::string_view> chosen;
  size_t closed = 0;
  bool cut_off = false;
  for (const reply::TagBlock& b : scan.blocks) {
    if (!b.opened) continue;
    if (!b.closed) {
      cut_off = true;
      continue;
    }
    ++closed;
    if (std::string_view c = content(text, b); !c.empty()) chosen = c;
  }
  if (closed > 1) problems.add(std::to_string(closed) + " " + tag(kImprovedVariableTag) + " blocks; the last is used");
  if (chosen) return {std::string(*chosen), problems.text(), false};
  if (cut_off)
    problems.add("the " + tag(kImprovedVariableTag) + " tag is not closed (the reply may be cut off)");
  else if (closed > 0)
    problems.add("the rewrite is blank");
  else if (reply::trim(text).empty())
    problems.add("the reply is empty");
  else
    problems.add("no " + tag(kImprovedVariableTag) + " tag");
  problems.add("the prompt is left unchanged");
  return {std::nullopt, problems.text(), true};
}

Parsed<std::string> parse_new_agent_prompt(std::string_view raw, std::string_view fallback) {
  reply::Problems problems("new agent prompt");
  const std::string text = reply::normalize(raw, problems);
  reply::TagScan scan = reply::scan_tags(text, kSystemPromptTag);
  std::string_view cut;
  for (const reply::TagBlock& b : scan.blocks) {
    if (!b.opened) continue;
    std::string_view c = content(text, b);
    if (b.closed && !c.empty()) return {std::string(c), problems.text(), false};
    if (!b.closed && !c.empty()) cut = c;
  }
  std::string value;
  if (!cut.empty()) {
    problems.add("the " + tag(kSystemPromptTag) +
                 " tag is not closed (the reply may be cut off); the text after it is used");
    value = std::string(cut);
  } else {
    value = std::string(reply::strip_fence(scan.without_tags));
    if (!value.empty()) problems.add("no " + tag(kSystemPromptTag) + " block; the whole reply is the prompt");
  }
  if (value.empty()) {
    problems.add("the reply has no prompt; the agent's description is used");
    value = std::string(fallback);
  }
  return {std::move(value), problems.text(), true};
}

}  // namespace kaisha::hiva
