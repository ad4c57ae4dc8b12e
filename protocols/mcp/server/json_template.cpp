#include "protocols/mcp/server/json_template.hpp"

#include <string>

namespace kaisha::mcp {

namespace {

// vars[key], or for "a.b.c" vars["a"]["b"]["c"]; nullptr when absent.
const json* lookup(const json& vars, const std::string& key) {
  if (vars.is_object() && vars.contains(key)) return &vars[key];
  const json* at = &vars;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

std::string fill_string(const std::string& s, const json& vars) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = s.find("{{", pos);
    if (open == std::string::npos) break;
    size_t close = s.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string key = s.substr(open + 2, close - open - 2);
    out.append(s, pos, open - pos);
    if (const json* v = lookup(vars, key))
      out += v->is_string() ? v->get<std::string>() : v->dump();
    else
      out.append(s, open, close + 2 - open);
    pos = close + 2;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

}  // namespace

json fill_template(const json& v, const json& vars) {
  if (v.is_string()) return fill_string(v.get<std::string>(), vars);
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) out.push_back(fill_template(e, vars));
    return out;
  }
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = fill_template(it.value(), vars);
    return out;
  }
  return v;
}

}  // namespace kaisha::mcp
