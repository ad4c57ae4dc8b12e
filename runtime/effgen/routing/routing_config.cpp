#include "runtime/effgen/routing/routing_config.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::routing {

namespace {

using config::YamlReader;

std::string config_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Reads `key` (or its deprecated `alias`) from `map`; the returned node is
// undefined when neither is present. Both present is an error.
Result<YAML::Node> keyed(const YamlReader& r, const YAML::Node& map, const std::string& path, const std::string& key,
                         const std::string& alias, std::vector<std::string>& warnings) {
  YAML::Node k = map[key];
  if (alias.empty()) return k;
  YAML::Node a = map[alias];
  if (a && k) {
    return r.error_at(a, YamlReader::join(path, alias),
                      "give either '" + key + "' or its alias '" + alias + "', not both");
  }
  if (a) {
    warnings.push_back(r.where(a) + ": '" + YamlReader::join(path, alias) + "' is an alias of '" +
                       YamlReader::join(path, key) + "'");
    return a;
  }
  return k;
}

Status read_custom(const YamlReader& r, const YAML::Node& node, const std::string& path,
                   std::vector<KeywordCategory>& out) {
  if (!node || node.IsNull()) return Status::Ok();
  if (!node.IsMap()) return r.error_at(node, path, "expected a map of name: [keywords]");
  for (auto it = node.begin(); it != node.end(); ++it) {
    auto name = r.read_string(it->first, path);
    if (!name) return name.error();
    if (name->empty()) return r.error_at(it->first, path, "empty category name");
    const std::string p = YamlReader::join(path, *name);
    const YAML::Node list = it->second;  // a copy: it-> yields a temporary
    if (!list.IsSequence()) return r.error_at(list, p, "expected a list of keywords");
    KeywordCategory cat{*name, {}};
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string ip = p + "[" + std::to_string(i) + "]";
      auto s = r.read_string(list[i], ip);
      if (!s) return s.error();
      if (phrase_words(*s).empty()) {
        return r.error_at(list[i], ip, "keyword \"" + *s + "\" has no letters or digits, so it can never match");
      }
      cat.phrases.push_back(std::move(*s));
    }
    out.push_back(std::move(cat));
  }
  return Status::Ok();
}

}  // namespace

std::string_view to_string(SpawnStrategy s) {
  switch (s) {
    case SpawnStrategy::automatic:
      return "auto";
    case SpawnStrategy::never:
      return "never";
    case SpawnStrategy::always:
      return "always";
  }
  return "auto";
}

void RoutingConfig::use_tier(ModelTier tier) {
  Thresholds t = thresholds_for_tier(tier);
  tau = t.tau;
  tau_h = t.tau_h;
  threshold_profile = llm::to_string(tier);
}

Status RoutingConfig::validate() const {
  if (Status s = weights.validate(); !s) return s;
  if (!std::isfinite(tau) || !std::isfinite(tau_h) || !(tau > 0.0) || !(tau < tau_h) || !(tau_h <= 10.0)) {
    return Error{"config", "routing thresholds must satisfy 0 < threshold < hierarchical_threshold <= 10 (got " +
                               config_num(tau) + " and " + config_num(tau_h) + ")"};
  }
  return Status::Ok();
}

AnalyzerOptions RoutingConfig::analyzer_options() const {
  AnalyzerOptions o;
  o.weights = weights;
  o.requirement_profile = requirement_profile;
  o.custom_domains = custom_domains;
  o.custom_tool_categories = custom_tool_categories;
  return o;
}

json RoutingConfig::to_json() const {
  auto cats = [](const std::vector<KeywordCategory>& v) {
    json j = json::object();
    for (const auto& c : v) j[c.name] = c.phrases;
    return j;
  };
  return json{{"enabled", enabled},
              {"weights", weights.to_json()},
              {"threshold", tau},
              {"hierarchical_threshold", tau_h},
              {"threshold_profile", threshold_profile},
              {"spawn_strategy", std::string(to_string(spawn_strategy))},
              {"enable_hierarchical", enable_hierarchical},
              {"requirement_profile", requirement_profile},
              {"custom_domains", cats(custom_domains)},
              {"custom_tool_categories", cats(custom_tool_categories)},
              {"keywords_file", keywords_file}};
}

Result<RoutingConfig> parse_routing_config(const YAML::Node& node, const std::string& source) {
  YamlReader r(source);
  RoutingConfig c;
  if (!node || node.IsNull()) return c;
  if (!node.IsMap()) return r.error_at(node, "", "expected a map of routing settings");
  if (Status s =
          r.check_keys(node, "",
                       {"enabled", "threshold", "complexity_threshold", "hierarchical_threshold", "threshold_profile",
                        "model_size_b", "weights", "requirement_profile", "custom_domains", "custom_tool_categories",
                        "spawn_strategy", "enable_hierarchical", "enable_sub_agents", "keywords_file"});
      !s) {
    return s.error();
  }

  if (YAML::Node n = node["enabled"]) {
    auto b = r.read_bool(n, "enabled");
    if (!b) return b.error();
    c.enabled = *b;
  }

  // Thresholds: profile first, explicit values override.
  const YAML::Node profile = node["threshold_profile"];
  const YAML::Node size = node["model_size_b"];
  if (profile && size) {
    return r.error_at(size, "model_size_b", "give either threshold_profile or model_size_b, not both");
  }
  if (profile) {
    auto name = r.read_string(profile, "threshold_profile");
    if (!name) return name.error();
    auto tier = llm::parse_model_tier(*name);
    if (!tier) {
      return r.error_at(profile, "threshold_profile",
                        "unknown profile '" + *name + "' (known: tiny, small, medium, large, xl)");
    }
    c.use_tier(*tier);
  } else if (size) {
    auto b = r.read_number(size, "model_size_b");
    if (!b) return b.error();
    if (!(*b > 0.0)) return r.error_at(size, "model_size_b", "must be > 0 (billions of parameters)");
    c.use_tier(llm::tier_from_parameters(*b));
  }
  auto tau_node = keyed(r, node, "", "threshold", "complexity_threshold", c.warnings);
  if (!tau_node) return tau_node.error();
  if (*tau_node) {
    auto v = r.read_number(*tau_node, "threshold");
    if (!v) return v.error();
    c.tau = *v;
  }
  const YAML::Node tau_h_node = node["hierarchical_threshold"];
  if (tau_h_node) {
    auto v = r.read_number(tau_h_node, "hierarchical_threshold");
    if (!v) return v.error();
    c.tau_h = *v;
  }
  if (!(c.tau > 0.0) || !(c.tau < c.tau_h) || !(c.tau_h <= 10.0)) {
    const YAML::Node& at = *tau_node ? *tau_node : (tau_h_node ? tau_h_node : node);
    return r.error_at(at, "threshold",
                      "must satisfy 0 < threshold < hierarchical_threshold <= 10 (got " + config_num(c.tau) + " and " +
                          config_num(c.tau_h) + ")");
  }

  if (const YAML::Node w = node["weights"]) {
    if (!w.IsMap()) return r.error_at(w, "weights", "expected a map of factor: weight");
    if (Status s = r.check_keys(w, "weights",
                                {"task_length", "requirement_count", "num_requirements", "domain_breadth",
                                 "tool_requirements", "reasoning_depth"});
        !s) {
      return s.error();
    }
    struct Field {
      const char* key;
      const char* alias;
      double* out;
    } fields[] = {{"task_length", "", &c.weights.length},
                  {"requirement_count", "num_requirements", &c.weights.requirements},
                  {"domain_breadth", "", &c.weights.domain},
                  {"tool_requirements", "", &c.weights.tools},
                  {"reasoning_depth", "", &c.weights.reasoning}};
    for (const Field& f : fields) {
      auto n = keyed(r, w, "weights", f.key, f.alias, c.warnings);
      if (!n) return n.error();
      if (!*n) continue;
      auto v = r.read_number(*n, std::string("weights.") + f.key);
      if (!v) return v.error();
      *f.out = *v;
    }
    if (Status s = c.weights.validate(); !s) return r.error_at(w, "weights", s.error().message);
  }

  if (YAML::Node n = node["requirement_profile"]) {
    auto s = r.read_string(n, "requirement_profile");
    if (!s) return s.error();
    c.requirement_profile = *s;  // checked against the keyword tables by the analyzer
  }
  if (Status s = read_custom(r, node["custom_domains"], "custom_domains", c.custom_domains); !s) return s.error();
  if (Status s = read_custom(r, node["custom_tool_categories"], "custom_tool_categories", c.custom_tool_categories);
      !s) {
    return s.error();
  }

  if (YAML::Node n = node["spawn_strategy"]) {
    auto s = r.read_string(n, "spawn_strategy");
    if (!s) return s.error();
    if (*s == "auto")
      c.spawn_strategy = SpawnStrategy::automatic;
    else if (*s == "never")
      c.spawn_strategy = SpawnStrategy::never;
    else if (*s == "always")
      c.spawn_strategy = SpawnStrategy::always;
    else
      return r.error_at(n, "spawn_strategy", "expected auto, never or always, got \"" + *s + "\"");
  }
  if (YAML::Node n = node["enable_sub_agents"]) {
    auto b = r.read_bool(n, "enable_sub_agents");
    if (!b) return b.error();
    if (!*b) {
      if (c.spawn_strategy == SpawnStrategy::always) {
        return r.error_at(n, "enable_sub_agents", "is false but spawn_strategy is always");
      }
      c.spawn_strategy = SpawnStrategy::never;
    }
  }
  if (YAML::Node n = node["enable_hierarchical"]) {
    auto b = r.read_bool(n, "enable_hierarchical");
    if (!b) return b.error();
    c.enable_hierarchical = *b;
  }
  if (YAML::Node n = node["keywords_file"]) {
    auto s = r.read_string(n, "keywords_file");
    if (!s) return s.error();
    if (s->empty()) return r.error_at(n, "keywords_file", "must not be empty (omit it for the default)");
    c.keywords_file = std::filesystem::path(*s).is_absolute() ? *s : data_file(*s);
  }
  return c;
}

}  // namespace kaisha::routing
