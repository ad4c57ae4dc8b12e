#include "runtime/effgen/routing/keyword_tables.hpp"

#include <algorithm>
#include <set>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/effgen/routing/text_scan.hpp"

namespace kaisha::routing {

namespace {

using config::YamlReader;

// Reads `node` (a list of strings) at `path` into `out`.
Status read_phrases(const YamlReader& r, const YAML::Node& node, const std::string& path,
                    std::vector<std::string>& out) {
  if (!node.IsSequence()) return r.error_at(node, path, "expected a list of keywords");
  if (node.size() == 0) return r.error_at(node, path, "has no keywords");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    auto s = r.read_string(node[i], item_path);
    if (!s) return s.error();
    if (phrase_words(*s).empty()) {
      return r.error_at(node[i], item_path, "keyword \"" + *s + "\" has no letters or digits, so it can never match");
    }
    out.push_back(std::move(*s));
  }
  return Status::Ok();
}

Status read_categories(const YamlReader& r, const YAML::Node& node, const std::string& path,
                       std::vector<KeywordCategory>& out) {
  if (!node.IsMap()) return r.error_at(node, path, "expected a map of name: [keywords]");
  if (node.size() == 0) return r.error_at(node, path, "is empty");
  for (auto it = node.begin(); it != node.end(); ++it) {
    auto name = r.read_string(it->first, path);
    if (!name) return name.error();
    if (name->empty()) return r.error_at(it->first, path, "empty category name");
    for (const auto& c : out) {
      if (c.name == *name) return r.error_at(it->first, path, "category '" + *name + "' appears twice");
    }
    KeywordCategory cat{*name, {}};
    if (Status s = read_phrases(r, it->second, YamlReader::join(path, *name), cat.phrases); !s) {
      return s.error();
    }
    out.push_back(std::move(cat));
  }
  return Status::Ok();
}

Result<double> read_score(const YamlReader& r, const YAML::Node& node, const std::string& path) {
  auto v = r.read_number(node, path);
  if (!v) return v.error();
  if (*v < 0.0 || *v > 10.0) return r.error_at(node, path, "must be in [0, 10], got " + node.Scalar());
  return *v;
}

Status read_levels(const YamlReader& r, const YAML::Node& node, const std::string& path,
                   std::vector<ReasoningLevel>& out) {
  if (!node.IsSequence()) return r.error_at(node, path, "expected a list of levels");
  if (node.size() == 0) return r.error_at(node, path, "has no levels");
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node& item = node[i];
    const std::string item_path = path + "[" + std::to_string(i) + "]";
    if (!item.IsMap()) return r.error_at(item, item_path, "expected a map {name, score, indicators}");
    if (Status s = r.check_keys(item, item_path, {"name", "score", "indicators"}); !s) return s.error();
    for (const char* key : {"name", "score", "indicators"}) {
      if (!item[key]) return r.error_at(item, item_path, std::string("missing key '") + key + "'");
    }
    ReasoningLevel level;
    auto name = r.read_string(item["name"], item_path + ".name");
    if (!name) return name.error();
    if (name->empty()) return r.error_at(item["name"], item_path + ".name", "must not be empty");
    for (const auto& l : out) {
      if (l.name == *name) {
        return r.error_at(item["name"], item_path + ".name", "level '" + *name + "' appears twice");
      }
    }
    level.name = *name;
    auto score = read_score(r, item["score"], item_path + ".score");
    if (!score) return score.error();
    level.score = *score;
    if (Status s = read_phrases(r, item["indicators"], item_path + ".indicators", level.indicators); !s) {
      return s.error();
    }
    out.push_back(std::move(level));
  }
  return Status::Ok();
}

Status read_profiles(const YamlReader& r, const YAML::Node& node, const std::string& path,
                     std::vector<RequirementProfile>& out) {
  if (!node.IsMap()) return r.error_at(node, path, "expected a map of name: {count: [...]}");
  if (node.size() == 0) return r.error_at(node, path, "is empty");
  for (auto it = node.begin(); it != node.end(); ++it) {
    auto name = r.read_string(it->first, path);
    if (!name) return name.error();
    const std::string p = YamlReader::join(path, *name);
    for (const auto& existing : out) {
      if (existing.name == *name) return r.error_at(it->first, path, "profile '" + *name + "' appears twice");
    }
    const YAML::Node body = it->second;  // a copy: it-> yields a temporary
    if (!body.IsMap()) return r.error_at(body, p, "expected a map {count: [...]}");
    if (Status s = r.check_keys(body, p, {"count", "commas_yield_to_numbered_items"}); !s) return s.error();
    RequirementProfile profile;
    profile.name = *name;
    const YAML::Node count = body["count"];
    if (!count) return r.error_at(body, p, "missing key 'count'");
    if (!count.IsSequence()) return r.error_at(count, p + ".count", "expected a list of token classes");
    for (std::size_t i = 0; i < count.size(); ++i) {
      const std::string item_path = p + ".count[" + std::to_string(i) + "]";
      auto cls_name = r.read_string(count[i], item_path);
      if (!cls_name) return cls_name.error();
      auto cls = parse_requirement_class(*cls_name);
      if (!cls) {
        return r.error_at(count[i], item_path,
                          "unknown token class '" + *cls_name +
                              "' (known: question, and, or, then, comma, semicolon, numbered_item, bullet)");
      }
      if (!profile.counts(*cls)) profile.classes.push_back(*cls);
    }
    if (const YAML::Node y = body["commas_yield_to_numbered_items"]) {
      auto b = r.read_bool(y, p + ".commas_yield_to_numbered_items");
      if (!b) return b.error();
      profile.commas_yield_to_numbered_items = *b;
    }
    out.push_back(std::move(profile));
  }
  return Status::Ok();
}

}  // namespace

const RequirementProfile* KeywordTables::find_profile(const std::string& name) const {
  for (const auto& p : requirement_profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

namespace {

Result<KeywordTables> read_keyword_tables(const std::string& yaml_text, const std::string& source) {
  auto doc = config::parse_yaml(yaml_text, source);
  if (!doc) return doc.error();
  YamlReader r(source);
  const YAML::Node& root = *doc;
  if (!root.IsMap()) return r.error_at(root, "", "expected a map with domains, tool_categories, ...");
  static const std::vector<std::string> kKeys = {"version",          "domains",           "tool_categories",
                                                 "reasoning_levels", "reasoning_default", "requirement_profiles"};
  if (Status s = r.check_keys(root, "", kKeys); !s) return s.error();
  for (const auto& key : kKeys) {
    if (!root[key]) return r.error_at(root, "", "missing key '" + key + "'");
  }
  auto version = r.read_int(root["version"], "version");
  if (!version) return version.error();
  if (*version != 1) {
    return r.error_at(root["version"], "version", "unsupported version " + std::to_string(*version) + " (expected 1)");
  }
  KeywordTables t;
  t.source = source;
  if (Status s = read_categories(r, root["domains"], "domains", t.domains); !s) return s.error();
  if (Status s = read_categories(r, root["tool_categories"], "tool_categories", t.tool_categories); !s) {
    return s.error();
  }
  if (Status s = read_levels(r, root["reasoning_levels"], "reasoning_levels", t.reasoning_levels); !s) {
    return s.error();
  }
  auto def = read_score(r, root["reasoning_default"], "reasoning_default");
  if (!def) return def.error();
  t.reasoning_default = *def;
  if (Status s = read_profiles(r, root["requirement_profiles"], "requirement_profiles", t.requirement_profiles); !s) {
    return s.error();
  }
  return t;
}

}  // namespace

Result<KeywordTables> parse_keyword_tables(const std::string& yaml_text, const std::string& source) {
  return config::guard_yaml(source, [&] { return read_keyword_tables(yaml_text, source); });
}

Result<KeywordTables> load_keyword_tables(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return Error{"config", "complexity keyword file: " + text.error().message};
  return parse_keyword_tables(*text, path);
}

std::string default_keyword_tables_path() { return data_file("data/effgen/complexity_keywords.yaml"); }

Result<std::shared_ptr<const KeywordTables>> default_keyword_tables() {
  // A function-local static is initialized once, thread-safely (C++11 magic
  // statics); the Result keeps an error as well as a value.
  static const Result<std::shared_ptr<const KeywordTables>> cached =
      []() -> Result<std::shared_ptr<const KeywordTables>> {
    auto t = load_keyword_tables(default_keyword_tables_path());
    if (!t) return t.error();
    return std::shared_ptr<const KeywordTables>(std::make_shared<KeywordTables>(std::move(*t)));
  }();
  return cached;
}

}  // namespace kaisha::routing
