#include "runtime/effgen/prompt_optimizer/optimizer_patterns.hpp"

#include <algorithm>
#include <initializer_list>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::prompt {

namespace {

// Reads one YAML document, turning every problem into "<source>:<line>:
// <path>: <what>". A small local reader (only the duplicate-key check is the
// config library's, so that every YAML file of kaisha refuses keys given twice).
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Error error(const YAML::Node& node, const std::string& path, const std::string& what) const {
    std::string where = source_;
    if (node.IsDefined() && node.Mark().line >= 0) where += ":" + std::to_string(node.Mark().line + 1);
    return Error{"config", where + ": " + (path.empty() ? "top level" : path) + ": " + what};
  }

  Status check_keys(const YAML::Node& map, const std::string& path, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) return error(map, path, "expected a map");
    for (const auto& kv : map) {
      std::string key = kv.first.Scalar();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }))
        return error(kv.first, join(path, key), "unknown key");
    }
    return Status::Ok();
  }

  Result<std::string> string(const YAML::Node& node, const std::string& path) const {
    if (!node.IsDefined() || node.IsNull()) return error(node, path, "missing");
    if (!node.IsScalar()) return error(node, path, "expected a string");
    return node.Scalar();
  }

  Result<bool> boolean(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) return error(node, path, "expected true or false");
    const std::string& s = node.Scalar();
    if (s == "true" || s == "yes") return true;
    if (s == "false" || s == "no") return false;
    return error(node, path, "expected true or false, got \"" + s + "\"");
  }

  // A list of strings, lowercased when `lower`. A missing key is an empty list.
  Result<std::vector<std::string>> strings(const YAML::Node& node, const std::string& path, bool lower) const {
    std::vector<std::string> out;
    if (!node.IsDefined() || node.IsNull()) return out;
    if (!node.IsSequence()) return error(node, path, "expected a list");
    for (size_t i = 0; i < node.size(); ++i) {
      auto s = string(node[i], path + "[" + std::to_string(i) + "]");
      if (!s) return s.error();
      if (s->empty()) return error(node[i], path + "[" + std::to_string(i) + "]", "must not be empty");
      out.push_back(lower ? ascii_lower(*s) : std::move(*s));
    }
    return out;
  }

  Result<std::vector<PatternPair>> pairs(const YAML::Node& node, const std::string& path) const {
    std::vector<PatternPair> out;
    if (!node.IsDefined() || node.IsNull()) return out;
    if (!node.IsSequence()) return error(node, path, "expected a list of {pattern, replacement}");
    for (size_t i = 0; i < node.size(); ++i) {
      std::string at = path + "[" + std::to_string(i) + "]";
      if (auto st = check_keys(node[i], at, {"pattern", "replacement"}); !st) return st.error();
      auto p = string(node[i]["pattern"], at + ".pattern");
      if (!p) return p.error();
      if (p->empty()) return error(node[i], at + ".pattern", "must not be empty");
      // An absent or null replacement means "(remove)".
      std::string r;
      if (YAML::Node rn = node[i]["replacement"]; rn.IsDefined() && !rn.IsNull()) {
        auto rs = string(rn, at + ".replacement");
        if (!rs) return rs.error();
        r = *rs;
      }
      out.push_back({*p, r});
    }
    return out;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string source_;
};

}  // namespace

Status OptimizerPatterns::add_custom_pattern(std::string pattern, std::string replacement) {
  if (pattern.empty()) return Error{"config", "custom pattern must not be empty"};
  custom.push_back({std::move(pattern), std::move(replacement)});
  return Status::Ok();
}

Result<OptimizerPatterns> parse_optimizer_patterns(const std::string& yaml_text, const std::string& source) {
  Reader r(source);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return Error{"config", source + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg};
  }
  if (Status s = config::check_unique_keys(root, source); !s) return s.error();
  if (root.IsNull()) return r.error(root, "", "the file is empty");
  if (auto st = r.check_keys(root, "", {"version", "compression", "custom_patterns", "politeness", "bullets"}); !st)
    return st.error();
  if (YAML::Node v = root["version"]; v.IsDefined() && !(v.IsScalar() && v.Scalar() == "1"))
    return r.error(v, "version", "unsupported version (expected 1)");

  OptimizerPatterns out;
  auto compression = r.pairs(root["compression"], "compression");
  if (!compression) return compression.error();
  if (compression->empty()) return r.error(root, "compression", "missing or empty");
  out.compression = std::move(*compression);
  auto custom = r.pairs(root["custom_patterns"], "custom_patterns");
  if (!custom) return custom.error();
  out.custom = std::move(*custom);

  if (YAML::Node pol = root["politeness"]; pol.IsDefined() && !pol.IsNull()) {
    if (!pol.IsSequence()) return r.error(pol, "politeness", "expected a list of {phrase, keep_in_user_text}");
    for (size_t i = 0; i < pol.size(); ++i) {
      std::string at = "politeness[" + std::to_string(i) + "]";
      if (auto st = r.check_keys(pol[i], at, {"phrase", "keep_in_user_text"}); !st) return st.error();
      auto phrase = r.string(pol[i]["phrase"], at + ".phrase");
      if (!phrase) return phrase.error();
      if (phrase->empty()) return r.error(pol[i], at + ".phrase", "must not be empty");
      PolitenessPhrase p{*phrase, false};
      if (YAML::Node k = pol[i]["keep_in_user_text"]; k.IsDefined()) {
        auto b = r.boolean(k, at + ".keep_in_user_text");
        if (!b) return b.error();
        p.keep_in_user_text = *b;
      }
      out.politeness.push_back(std::move(p));
    }
  }

  if (YAML::Node b = root["bullets"]; b.IsDefined() && !b.IsNull()) {
    if (auto st = r.check_keys(b, "bullets", {"leads", "sequence_words", "sequence_clauses", "verbs"}); !st)
      return st.error();
    if (YAML::Node leads = b["leads"]; leads.IsDefined() && !leads.IsNull()) {
      if (!leads.IsSequence()) return r.error(leads, "bullets.leads", "expected a list of {lead, header}");
      for (size_t i = 0; i < leads.size(); ++i) {
        std::string at = "bullets.leads[" + std::to_string(i) + "]";
        if (auto st = r.check_keys(leads[i], at, {"lead", "header"}); !st) return st.error();
        auto lead = r.string(leads[i]["lead"], at + ".lead");
        if (!lead) return lead.error();
        if (lead->empty()) return r.error(leads[i], at + ".lead", "must not be empty");
        std::string header;
        if (YAML::Node h = leads[i]["header"]; h.IsDefined() && !h.IsNull()) {
          auto hs = r.string(h, at + ".header");
          if (!hs) return hs.error();
          header = *hs;
        }
        out.instruction_leads.push_back({*lead, header});
      }
    }
    auto seq = r.strings(b["sequence_words"], "bullets.sequence_words", true);
    if (!seq) return seq.error();
    out.sequence_words = std::move(*seq);
    auto clauses = r.strings(b["sequence_clauses"], "bullets.sequence_clauses", true);
    if (!clauses) return clauses.error();
    out.sequence_clauses = std::move(*clauses);
    auto verbs = r.strings(b["verbs"], "bullets.verbs", true);
    if (!verbs) return verbs.error();
    out.instruction_verbs = std::move(*verbs);
  }
  return out;
}

Result<OptimizerPatterns> load_optimizer_patterns(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return Error{"config", text.error().message};
  return parse_optimizer_patterns(*text, path);
}

std::string default_optimizer_patterns_path() { return data_file("data/effgen/optimizer_patterns.yaml"); }

}  // namespace kaisha::prompt
