#include "runtime/halo/replies/next_subtask.hpp"

#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {

Parsed<NextSubtask> parse_next_subtask(std::string_view reply, std::string_view refined_query) {
  reply::Problems problems("planner");
  const std::string key(kNextSubtaskKey);
  Result<json> object = reply::object(reply, key);
  if (!object) {
    problems.add(object.error().message);
  } else if (auto it = object->find(key); it == object->end()) {
    problems.add(reply::missing(*object, key));
  } else if (!it->is_string()) {
    problems.add("key \"" + key + "\" is " + reply::kind(*it) + ", expected a subtask or \"stop\"");
  } else if (std::string_view text = answers::trim(it->get_ref<const std::string&>()); text.empty()) {
    problems.add("key \"" + key + "\" is blank");
  } else if (text.size() == 4 && ascii_lower(text) == "stop") {
    return {NextSubtask{true, ""}, std::nullopt, false};
  } else {
    return {NextSubtask{false, std::string(text)}, std::nullopt, false};
  }
  problems.add("the next subtask is the refined query");
  return {NextSubtask{false, std::string(refined_query)}, problems.text(), true};
}

}  // namespace kaisha::halo
