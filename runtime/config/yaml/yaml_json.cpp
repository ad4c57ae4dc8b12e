#include "runtime/config/yaml/yaml_json.hpp"

#include <string>

namespace kaisha::config {

json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& e : n) a.push_back(yaml_to_json(e));
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return o;
    }
    default:
      break;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: always text
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "null" || s == "~") return nullptr;
  json num = json::parse(s, nullptr, false);
  if (!num.is_discarded() && num.is_number()) return num;
  return s;
}

}  // namespace kaisha::config
