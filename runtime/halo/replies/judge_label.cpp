#include "runtime/halo/replies/judge_label.hpp"

#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {

Parsed<NodeLabel> parse_judge_label(std::string_view reply) {
  reply::Problems problems("judge");
  const std::string key(kStatusKey);
  const char* expected = "expected one of success|fail|continue";
  Result<json> object = reply::object(reply, key);
  if (!object) {
    problems.add(object.error().message);
  } else if (auto it = object->find(key); it == object->end()) {
    problems.add(reply::missing(*object, key));
  } else if (!it->is_string()) {
    problems.add("key \"" + key + "\" is " + reply::kind(*it) + ", " + expected);
  } else {
    const std::string& raw = it->get_ref<const std::string&>();
    std::string word = ascii_lower(answers::trim(raw));
    for (NodeLabel label : {NodeLabel::success, NodeLabel::fail, NodeLabel::continue_})
      if (word == to_string(label)) return {label, std::nullopt, false};
    problems.add("\"" + key + "\" is " + reply::in_quotes(raw) + ", " + expected);
  }
  problems.add("the label is continue");
  return {NodeLabel::continue_, problems.text(), true};
}

}  // namespace kaisha::halo
