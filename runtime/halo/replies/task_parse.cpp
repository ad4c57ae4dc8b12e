#include "runtime/halo/replies/task_parse.hpp"

#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {

Parsed<TaskParse> parse_task_parse(std::string_view reply, std::string_view raw_query) {
  reply::Problems problems("task parser");
  Parsed<TaskParse> out;
  Result<json> object = reply::object(reply, kTaskTypeKey);
  if (!object) problems.add(object.error().message + "; every field is the raw query");
  auto field = [&](std::string_view key, std::string& into) {
    into = std::string(raw_query);
    if (!object) {
      out.defaulted = true;
      return;
    }
    auto it = object->find(std::string(key));
    if (it == object->end()) {
      problems.add(reply::missing(*object, key) + ", used the raw query");
    } else if (!it->is_string()) {
      problems.add("key \"" + std::string(key) + "\" is " + reply::kind(*it) +
                   ", expected a string; used the raw query");
    } else {
      into = it->get<std::string>();
      return;
    }
    out.defaulted = true;
  };
  field(kTaskTypeKey, out.value.task_type);
  field(kCoreIntentKey, out.value.core_intent);
  field(kKeyDetailsKey, out.value.key_details);
  out.problem = problems.text();
  return out;
}

}  // namespace kaisha::halo
