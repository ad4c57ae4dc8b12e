#include "runtime/halo/replies/prompt_reply.hpp"

#include "runtime/answers/trim.hpp"
#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {
namespace {

const char* who(PromptReply kind) {
  switch (kind) {
    case PromptReply::generated_template:
      return "prompt template";
    case PromptReply::optimized_template:
      return "prompt optimizer";
    case PromptReply::final_prompt:
      return "final prompt";
    case PromptReply::agent_template:
      return "agent prompt template";
    case PromptReply::agent_optimized:
      return "agent prompt optimizer";
    case PromptReply::agent_final:
      return "agent final prompt";
  }
  return "prompt";
}

}  // namespace

std::string_view reply_key(PromptReply kind) {
  switch (kind) {
    case PromptReply::generated_template:
      return "Generated Prompt Template";
    case PromptReply::optimized_template:
    case PromptReply::agent_optimized:
      return "Optimized Prompt Template";
    case PromptReply::final_prompt:
    case PromptReply::agent_final:
      return "Final Prompt";
    case PromptReply::agent_template:
      return "Prompt Template";
  }
  return "";
}

Parsed<std::string> parse_prompt_reply(PromptReply kind, std::string_view reply, std::string_view fallback) {
  reply::Problems problems(who(kind));
  const std::string key(reply_key(kind));
  Result<json> object = reply::object(reply, key);
  if (!object) {
    problems.add(object.error().message);
  } else if (auto it = object->find(key); it == object->end()) {
    problems.add(reply::missing(*object, key));
  } else if (!it->is_string()) {
    problems.add("key \"" + key + "\" is " + reply::kind(*it) + ", expected a string");
  } else if (std::string_view text = answers::trim(it->get_ref<const std::string&>()); text.empty()) {
    problems.add("key \"" + key + "\" is blank");
  } else {
    return {std::string(text), std::nullopt, false};
  }
  return {std::string(fallback), problems.text(), true};
}

}  // namespace kaisha::halo
