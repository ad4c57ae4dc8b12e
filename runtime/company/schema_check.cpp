#include "runtime/company/schema_check.hpp"

namespace kaisha::company {
namespace {

const char* json_type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool matches_type(const std::string& type, const json& v) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer() || v.is_number_unsigned() ||
                                (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return true;  // unknown type keyword: do not second-guess the tool
}

}  // namespace

Status check_arguments(const std::string& tool, const json& schema, const json& args) {
  if (!args.is_object())
    return Error{"arguments", tool + ": arguments must be a JSON object, got " + json_type_name(args)};
  if (!schema.is_object()) return Status::Ok();
  if (auto req = schema.find("required"); req != schema.end() && req->is_array()) {
    for (const auto& key : *req) {
      if (key.is_string() && !args.contains(key.get<std::string>()))
        return Error{"arguments", tool + ": missing required parameter '" + key.get<std::string>() + "'"};
    }
  }
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return Status::Ok();
  for (const auto& [key, value] : args.items()) {
    auto p = props->find(key);
    if (p == props->end() || !p->is_object()) continue;  // extra keys are tolerated
    if (auto t = p->find("type"); t != p->end()) {
      bool ok = false;
      if (t->is_string()) ok = matches_type(*t, value);
      else if (t->is_array()) {
        for (const auto& alt : *t) ok = ok || (alt.is_string() && matches_type(alt, value));
      } else ok = true;
      if (!ok)
        return Error{"arguments", tool + ": parameter '" + key + "' must be " + t->dump() +
                                      ", got " + json_type_name(value)};
    }
    if (auto e = p->find("enum"); e != p->end() && e->is_array()) {
      bool found = false;
      for (const auto& alt : *e) found = found || alt == value;
      if (!found)
        return Error{"arguments", tool + ": parameter '" + key + "' must be one of " + e->dump() +
                                      ", got " + value.dump()};
    }
  }
  return Status::Ok();
}

}  // namespace kaisha::company
