#include "runtime/company/tool_versions.hpp"

#include <cstdio>

#include "runtime/core/fnv1a.hpp"

namespace kaisha::company {

std::string tool_code_hash(std::string_view code) {
  // The tool index's basis (a digit short of FNV's): hashes on disk were made with it.
  const uint64_t h = fnv1a_64(1469598103934665603ull, code);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

const ToolVersion& ToolVersions::add(std::string code, int first_version) {
  std::string hash = tool_code_hash(code);
  if (!versions_.empty() && versions_.back().code_hash == hash && versions_.back().code == code)
    return versions_.back();
  const int number = versions_.empty() ? (first_version > 0 ? first_version : 1) : versions_.back().version + 1;
  versions_.push_back(ToolVersion{number, std::move(hash), std::move(code)});
  bound();
  return versions_.back();
}

Status ToolVersions::restore(ToolVersion v) {
  if (v.version < 1) return Error{"tool_versions", "version " + std::to_string(v.version) + " is not a number >= 1"};
  if (!versions_.empty() && v.version <= versions_.back().version)
    return Error{"tool_versions", "version " + std::to_string(v.version) + " does not come after version " +
                                      std::to_string(versions_.back().version)};
  const std::string hash = tool_code_hash(v.code);
  if (v.code_hash != hash)
    return Error{"tool_versions", "version " + std::to_string(v.version) + ": code_hash " + v.code_hash +
                                      " is not the hash of its code (" + hash + ")"};
  versions_.push_back(std::move(v));
  bound();
  return Status::Ok();
}

const ToolVersion* ToolVersions::find(int version) const {
  for (const ToolVersion& v : versions_)
    if (v.version == version) return &v;
  return nullptr;
}

void ToolVersions::bound() {
  if (versions_.size() > max_kept_) versions_.erase(versions_.begin(), versions_.end() - max_kept_);
}

json ToolVersions::to_json(bool with_code) const {
  json out = json::array();
  for (const ToolVersion& v : versions_) {
    json o = json::object();
    o["version"] = v.version;
    o["code_hash"] = v.code_hash;
    if (with_code) o["code"] = v.code;
    out.push_back(std::move(o));
  }
  return out;
}

Result<ToolVersions> ToolVersions::from_json(const json& j, const std::string& path, std::size_t max_kept) {
  auto bad = [](const std::string& where, const std::string& what) {
    return Error{"tool_versions", where + ": " + what};
  };
  if (!j.is_array()) return bad(path, "expected an array of versions");
  ToolVersions out(max_kept);
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    const json& e = j[i];
    if (!e.is_object()) return bad(at, "expected an object {version, code_hash, code}");
    auto v = e.find("version");
    auto h = e.find("code_hash");
    auto c = e.find("code");
    if (v == e.end() || !v->is_number_integer()) return bad(at + ".version", "expected an integer");
    if (h == e.end() || !h->is_string()) return bad(at + ".code_hash", "expected a string");
    if (c == e.end() || !c->is_string()) return bad(at + ".code", "expected a string");
    if (Status s = out.restore(ToolVersion{v->get<int>(), h->get<std::string>(), c->get<std::string>()}); !s)
      return bad(at, s.error().message);
  }
  return out;
}

}  // namespace kaisha::company
