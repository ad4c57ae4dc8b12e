#include "runtime/core/params_check.hpp"

#include <cmath>

namespace kaisha {
namespace {

bool has_type(const std::string& type, const json& v) {
  if (type == "string") return v.is_string();
  if (type == "integer") {
    if (v.is_number_integer() || v.is_number_unsigned()) return true;
    // JSON Schema counts 2.0 as an integer: only the value matters.
    return v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>();
  }
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return true;  // unknown type name: accept
}

Error fail(const std::string& where, const std::string& what) { return Error{"invalid_params", where + ": " + what}; }

Status check(const json& schema, const json& v, const std::string& where, int depth) {
  if (!schema.is_object() || depth > 64) return Status::Ok();

  if (auto t = schema.find("type"); t != schema.end()) {
    bool ok = true;
    std::string expected;
    if (t->is_string()) {
      ok = has_type(t->get<std::string>(), v);
      expected = t->get<std::string>();
    } else if (t->is_array()) {
      ok = t->empty();
      for (const auto& name : *t) {
        if (!name.is_string()) continue;
        if (!expected.empty()) expected += " or ";
        expected += name.get<std::string>();
        ok = ok || has_type(name.get<std::string>(), v);
      }
    }
    if (!ok) return fail(where, "expected " + expected + ", got " + json_kind(v));
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const auto& option : *e) found = found || option == v;
    if (!found) return fail(where, v.dump() + " is not one of " + e->dump());
  }
  if (auto c = schema.find("const"); c != schema.end() && *c != v) {
    return fail(where, "must be " + c->dump() + ", got " + v.dump());
  }

  if (v.is_object()) {
    if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      for (const auto& key : *r) {
        if (key.is_string() && !v.contains(key.get<std::string>())) {
          return fail(where, "missing required member '" + key.get<std::string>() + "'");
        }
      }
    }
    const auto props = schema.find("properties");
    const bool have_props = props != schema.end() && props->is_object();
    const auto extra = schema.find("additionalProperties");
    for (const auto& [key, value] : v.items()) {
      const std::string path = where + "." + key;
      if (have_props) {
        if (auto p = props->find(key); p != props->end()) {
          if (auto s = check(*p, value, path, depth + 1); !s.ok()) return s;
          continue;
        }
      }
      if (extra == schema.end()) continue;
      if (extra->is_boolean() && !extra->get<bool>()) {
        return fail(where, "unexpected member '" + key + "'");
      }
      if (auto s = check(*extra, value, path, depth + 1); !s.ok()) return s;
    }
  }
  if (v.is_array()) {
    if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (auto s = check(*items, v[i], where + "[" + std::to_string(i) + "]", depth + 1); !s.ok()) {
          return s;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

const char* json_kind(const json& v, JsonIntegers integers) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (integers == JsonIntegers::apart && (v.is_number_integer() || v.is_number_unsigned())) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

Status check_params(const json& schema, const json& value, const std::string& root) {
  return check(schema, value, root, 0);
}

}  // namespace kaisha
