#include "runtime/config/config_loader.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "runtime/config/yaml/yaml_json.hpp"
#include "runtime/config/management_tools.hpp"
#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::config {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

ProviderConfig builtin_provider(const std::string& name) {
  ProviderConfig p;
  p.name = name;
  p.dialect = name;
  if (name == "ollama") {
    p.base_url = env_or("OLLAMA_HOST", "http://127.0.0.1:11434");
    // OLLAMA_HOST is often given as host:port without a scheme.
    if (p.base_url.find("://") == std::string::npos) p.base_url = "http://" + p.base_url;
  } else if (name == "openai") {
    p.base_url = "https://api.openai.com/v1";
    p.api_key = env_or("OPENAI_API_KEY", "");
  } else if (name == "gemini") {
    p.base_url = "https://generativelanguage.googleapis.com/v1beta";
    p.api_key = env_or("GEMINI_API_KEY", "");
  } else if (name == "anthropic") {
    p.base_url = "https://api.anthropic.com";
    p.api_key = env_or("ANTHROPIC_API_KEY", "");
  }
  return p;
}

const std::vector<std::string> kBuiltinProviders = {"ollama", "openai", "gemini", "anthropic"};
const std::vector<std::string> kDialects = {"openai", "ollama", "gemini", "anthropic"};
const std::vector<std::string> kResourceModes = {"fixed", "host_memory", "paper_16GiB_is_100"};
const std::vector<std::string> kMemoryRankings = {"similarity", "effgen"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x == s) return true;
  return false;
}

std::string one_of(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

std::string trim_number(double v) {
  std::ostringstream ss;
  ss << v;
  return ss.str();
}

// Reads the sections of one document into a Config. The first error stops it.
class ConfigParser {
 public:
  ConfigParser(const std::string& source, Config& out) : r_(source), c_(out) {}

  Status parse(const YAML::Node& root) {
    if (root.IsNull()) return Status::Ok();
    if (Status s = r_.expect_map(root, ""); !s) return s;
    std::vector<std::string> keys = {"store", "cost_table",  "prompts_dir", "ceo",       "employee", "providers",
                                     "retry", "budget",      "switches",    "strategy",  "judge",    "memory",
                                     "tools", "mcp_servers", "serve",       "telemetry", "journal"};
    for (const auto& s : strategy::strategies())  // each strategy's own section
      if (!s.config_section.empty()) keys.push_back(s.config_section);
    if (Status s = r_.check_keys(root, "", keys); !s) return s;
    if (Status s = r_.optional_string(root, "", "store", c_.store_path); !s) return s;
    if (Status s = r_.optional_string(root, "", "cost_table", c_.cost_table_file); !s) return s;
    if (Status s = r_.optional_string(root, "", "prompts_dir", c_.prompts_dir); !s) return s;
    if (Status s = journal(root["journal"]); !s) return s;
    if (Status s = ceo(root["ceo"]); !s) return s;
    if (Status s = employee(root["employee"]); !s) return s;
    if (Status s = providers(root["providers"]); !s) return s;
    if (Status s = retry(root["retry"]); !s) return s;
    if (Status s = budget(root["budget"]); !s) return s;
    if (Status s = choice(root, "", "strategy", c_.strategy, strategy::strategy_names()); !s) return s;
    for (const auto& s : strategy::strategies())
      if (Status st = strategy_section(s, root); !st) return st;
    if (Status s = judge(root["judge"], root["effgen"]); !s) return s;
    if (Status s = memory(root["memory"]); !s) return s;
    if (Status s = tools(root["tools"]); !s) return s;
    if (Status s = read_mcp_servers(root["mcp_servers"], r_, c_.mcp_servers); !s) return s;
    if (Status s = read_serve_config(root["serve"], r_, c_.serve); !s) return s;
    if (Status s = read_telemetry_config(root["telemetry"], r_, c_.telemetry); !s) return s;
    return switches(root["switches"]);
  }

 private:
  // Each reader below leaves `out` untouched when the key is absent or null.
  Status choice(const YAML::Node& map, const std::string& path, const char* key, std::string& out,
                const std::vector<std::string>& allowed) {
    return r_.optional_choice(map, path, key, out, allowed);
  }

  // A number >= min (or > min when `strict`).
  Status num(const YAML::Node& map, const std::string& path, const char* key, double& out, double min, bool strict) {
    return r_.optional_number(map, path, key, out, min, strict);
  }

  template <class Int>
  Status integer(const YAML::Node& map, const std::string& path, const char* key, Int& out, int64_t min) {
    return r_.optional_count(map, path, key, out, min);
  }

  Status ceo(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "ceo";
    if (Status s = r_.expect_section(
            n, p, {"model", "temperature", "max_turns", "max_malformed_tool_calls", "system_prompt_file", "stream"});
        !s)
      return s;
    if (Status s = r_.optional_string(n, p, "model", c_.ceo.model); !s) return s;
    if (Status s = num(n, p, "temperature", c_.ceo.temperature, 0, false); !s) return s;
    if (Status s = integer(n, p, "max_turns", c_.ceo.max_turns, 1); !s) return s;
    if (Status s = integer(n, p, "max_malformed_tool_calls", c_.ceo.max_malformed_tool_calls, 0); !s) return s;
    if (Status s = r_.optional_bool(n, p, "stream", c_.ceo.stream); !s) return s;
    return r_.optional_string(n, p, "system_prompt_file", c_.ceo.system_prompt_file);
  }

  Status employee(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "employee";
    if (Status s = r_.expect_section(
            n, p,
            {"max_output_tokens", "temperature", "stream", "tools", "max_tool_iterations", "max_malformed_tool_calls"});
        !s)
      return s;
    if (Status s = integer(n, p, "max_output_tokens", c_.employee.max_output_tokens, 1); !s) return s;
    if (Status s = r_.optional_bool(n, p, "stream", c_.employee.stream); !s) return s;
    if (Status s = integer(n, p, "max_tool_iterations", c_.employee.max_tool_iterations, 1); !s) return s;
    if (Status s = integer(n, p, "max_malformed_tool_calls", c_.employee.max_malformed_tool_calls, 0); !s) return s;
    if (Status s = employee_tools(n["tools"], p + ".tools"); !s) return s;
    return num(n, p, "temperature", c_.employee.temperature, 0, false);
  }

  // employee.tools: { all: [...], agents: {Name: [...]}, models: {model: [...]} }.
  // Names are checked against the tools that exist when the company starts;
  // here only their form and the tools no employee may ever have.
  Status employee_tools(const YAML::Node& n, const std::string& p) {
    if (!YamlReader::present(n)) return Status::Ok();
    if (Status s = r_.expect_section(n, p, {"all", "agents", "models"}); !s) return s;
    EmployeeGrants& g = c_.employee.tools;
    if (Status s = grant_list(n["all"], p + ".all", g.all); !s) return s;
    for (const char* key : {"agents", "models"}) {
      const YAML::Node m = n[key];
      if (!YamlReader::present(m)) continue;
      const std::string q = YamlReader::join(p, key);
      if (Status s = r_.expect_map(m, q); !s) return s;
      auto& by = std::string(key) == "agents" ? g.agents : g.models;
      for (auto it = m.begin(); it != m.end(); ++it) {
        const std::string name = it->first.Scalar();
        if (Status s = grant_list(it->second, q + "." + name, by[name]); !s) return s;
      }
    }
    return Status::Ok();
  }

  Status grant_list(const YAML::Node& n, const std::string& p, std::vector<GrantEntry>& out) {
    if (!YamlReader::present(n)) return Status::Ok();
    if (!n.IsSequence()) return r_.error_at(n, p, "expected a list of tool names or providers (builtin, mcp:<server>)");
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string q = p + "[" + std::to_string(i) + "]";
      auto v = r_.read_string(n[i], q);
      if (!v) return v.error();
      if (v->empty()) return r_.error_at(n[i], q, "a tool name or provider cannot be empty");
      if (*v == "mcp:") return r_.error_at(n[i], q, "'mcp:' needs a server name (mcp:<server>)");
      if (is_management_tool(*v))
        return r_.error_at(n[i], q,
                           "'" + *v +
                               "' is a management tool of the CEO; employees can never use it "
                               "(two tiers, hashiru.md §9 item 3)");
      out.push_back({*v, r_.where(n[i]) + ": " + q});
    }
    return Status::Ok();
  }

  Status providers(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    if (Status s = r_.expect_map(n, "providers"); !s) return s;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string name = it->first.Scalar();
      const std::string p = "providers." + name;
      const YAML::Node v = it->second;  // a copy: it-> returns a temporary proxy
      if (Status s = r_.expect_section(
              v, p,
              {"dialect", "base_url", "api_key", "max_concurrency", "timeout_ms", "connect_timeout_ms", "headers"});
          !s)
        return s;
      bool builtin = contains(kBuiltinProviders, name);
      auto existing = c_.providers.find(name);
      ProviderConfig pc = existing != c_.providers.end() ? existing->second : builtin_provider(name);
      pc.name = name;
      if (!builtin) pc.dialect.clear();
      if (YamlReader::present(v)) {
        if (Status s = choice(v, p, "dialect", pc.dialect, kDialects); !s) return s;
        if (Status s = r_.optional_string(v, p, "base_url", pc.base_url); !s) return s;
        if (Status s = r_.optional_string(v, p, "api_key", pc.api_key); !s) return s;
        if (Status s = integer(v, p, "max_concurrency", pc.max_concurrency, 1); !s) return s;
        if (Status s = integer(v, p, "timeout_ms", pc.timeout_ms, 1); !s) return s;
        if (Status s = integer(v, p, "connect_timeout_ms", pc.connect_timeout_ms, 1); !s) return s;
        if (Status s = headers(v["headers"], p + ".headers", pc.headers); !s) return s;
      }
      if (pc.dialect.empty()) {
        return r_.error_at(
            it->first, p,
            "'dialect' is required for a provider that is not built in (one of " + one_of(kDialects) + ")");
      }
      if (pc.base_url.empty()) {
        return r_.error_at(it->first, p, "'base_url' is required for a provider that is not built in");
      }
      c_.providers[name] = std::move(pc);
    }
    return Status::Ok();
  }

  Status headers(const YAML::Node& n, const std::string& p, std::map<std::string, std::string>& out) {
    if (!YamlReader::present(n)) return Status::Ok();
    if (Status s = r_.expect_map(n, p); !s) return s;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.Scalar();
      auto v = r_.read_string(it->second, p + "." + key);
      if (!v) return v.error();
      out[key] = *v;
    }
    return Status::Ok();
  }

  Status retry(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "retry";
    if (Status s = r_.expect_section(
            n, p, {"max_attempts", "base_delay_ms", "max_delay_ms", "max_retry_after_ms", "multiplier"});
        !s)
      return s;
    if (Status s = integer(n, p, "max_attempts", c_.retry.max_attempts, 1); !s) return s;
    // Delays may be 0 (tests and local servers retry immediately).
    if (Status s = integer(n, p, "base_delay_ms", c_.retry.base_delay_ms, 0); !s) return s;
    if (Status s = integer(n, p, "max_delay_ms", c_.retry.max_delay_ms, 0); !s) return s;
    if (Status s = integer(n, p, "max_retry_after_ms", c_.retry.max_retry_after_ms, 0); !s) return s;
    return num(n, p, "multiplier", c_.retry.multiplier, 1, false);
  }

  Status budget(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "budget";
    if (Status s = r_.expect_section(
            n, p, {"resource_mode", "resource_total", "expense_total", "max_agents", "max_inflight_asks"});
        !s)
      return s;
    if (Status s = choice(n, p, "resource_mode", c_.budget.resource_mode, kResourceModes); !s) return s;
    if (Status s = num(n, p, "resource_total", c_.budget.resource_total, 0, true); !s) return s;
    // An expense budget of 0 is legitimate: only local models may be used.
    if (Status s = num(n, p, "expense_total", c_.budget.expense_total, 0, false); !s) return s;
    if (Status s = integer(n, p, "max_agents", c_.budget.max_agents, 0); !s) return s;
    return integer(n, p, "max_inflight_asks", c_.budget.max_inflight_asks, 0);
  }

  // A strategy's own section: as JSON for its setup, and read by its entry
  // into typed settings (the defaults when the file has no such section).
  Status strategy_section(const strategy::StrategyInfo& s, const YAML::Node& root) {
    if (s.config_section.empty()) return Status::Ok();
    const YAML::Node n = root[s.config_section];
    if (YamlReader::present(n)) c_.strategy_sections[s.config_section] = yaml_to_json(n);
    if (!s.read_settings) return Status::Ok();
    if (YamlReader::present(n))
      if (Status st = r_.expect_map(n, s.config_section); !st) return st;
    auto settings = s.read_settings(n, r_);
    if (!settings) return settings.error();
    c_.strategy_settings[s.config_section] = std::move(settings).value();
    return Status::Ok();
  }

  // `judge:`, and the older names of three of its keys in `effgen:`.
  Status judge(const YAML::Node& n, const YAML::Node& effgen) {
    const std::string p = "judge";
    JudgeConfig& j = c_.judge;
    if (YamlReader::present(n)) {
      if (Status s = r_.expect_section(n, p, {"model", "subtasks", "final_answer", "max_retries"}); !s) return s;
      if (Status s = r_.optional_bool(n, p, "final_answer", j.final_answer); !s) return s;
    }
    auto read_string = [this](const YAML::Node& m, const std::string& q, const char* key, std::string& out) {
      return r_.optional_string(m, q, key, out);
    };
    auto read_bool = [this](const YAML::Node& m, const std::string& q, const char* key, bool& out) {
      return r_.optional_bool(m, q, key, out);
    };
    auto read_count = [this](const YAML::Node& m, const std::string& q, const char* key, int& out) {
      return integer(m, q, key, out, 0);
    };
    if (Status s = renamed(n, "model", effgen, "judge_model", j.model, read_string); !s) return s;
    if (Status s = renamed(n, "subtasks", effgen, "judge", j.subtasks, read_bool); !s) return s;
    return renamed(n, "max_retries", effgen, "max_judge_retries", j.max_retries, read_count);
  }

  // judge.<key>, which was effgen.<old_key>. The old key is still read, with
  // a line in Config::warnings; both given with different values is an error
  // naming both (equal values only warn). `read(map, path, key, out)` is the
  // key's typed reader.
  template <class T, class Read>
  Status renamed(const YAML::Node& n, const char* key, const YAML::Node& old_section, const char* old_key, T& out,
                 Read read) {
    const std::string path = YamlReader::join("judge", key);
    const std::string old_path = YamlReader::join("effgen", old_key);
    const bool has_new = YamlReader::present(n) && YamlReader::present(n[key]);
    const bool has_old = YamlReader::present(old_section) && YamlReader::present(old_section[old_key]);
    T from_new = out;
    T from_old = out;
    if (has_new)
      if (Status s = read(n, "judge", key, from_new); !s) return s;
    if (has_old) {
      const YAML::Node old_node = old_section[old_key];
      if (Status s = read(old_section, "effgen", old_key, from_old); !s) return s;
      if (has_new && !(from_new == from_old))
        return r_.error_at(old_node, old_path,
                           "is the older name of '" + path + "', also given at " + r_.where(n[key]) +
                               " with a different value; keep only '" + path + "'");
      c_.warnings.push_back(r_.where(old_node) + ": '" + old_path + "' is deprecated; it is read as '" + path +
                            "', its new name (move it to the judge: section)");
    }
    if (has_new || has_old) out = has_new ? from_new : from_old;
    return Status::Ok();
  }

  Status journal(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "journal";
    JournalConfig& j = c_.journal;
    if (Status s = r_.expect_section(n, p, {"durability", "keep_days", "keep_sessions"}); !s) return s;
    if (Status s = choice(n, p, "durability", j.durability, {"normal", "full"}); !s) return s;
    if (Status s = integer(n, p, "keep_days", j.keep_days, 0); !s) return s;
    return integer(n, p, "keep_sessions", j.keep_sessions, 0);
  }

  Status memory(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "memory";
    MemoryConfig& m = c_.memory;
    if (Status s = r_.expect_section(
            n, p,
            {"path", "embedding_model", "embedding_dims", "threshold", "top_k", "auto_retrieve", "lexical_weight",
             "ranking", "context_messages", "exact_below", "index_dir", "error_reflection", "short_term"});
        !s)
      return s;
    if (Status s = r_.optional_string(n, p, "path", m.path); !s) return s;
    if (Status s = r_.optional_string(n, p, "embedding_model", m.embedding_model); !s) return s;
    if (!m.embedding_model.empty() && m.embedding_model.find(':') == std::string::npos)
      return r_.error_at(
          n["embedding_model"], YamlReader::join(p, "embedding_model"),
          "expected a model ref provider:model (e.g. ollama:all-minilm), got \"" + m.embedding_model + "\"");
    if (Status s = integer(n, p, "embedding_dims", m.embedding_dims, 8); !s) return s;
    if (Status s = num(n, p, "threshold", m.threshold, -1, false); !s) return s;
    if (m.threshold > 1)
      return r_.error_at(n["threshold"], YamlReader::join(p, "threshold"),
                         "a cosine similarity threshold must be <= 1, got " + trim_number(m.threshold));
    if (Status s = integer(n, p, "top_k", m.top_k, 1); !s) return s;
    if (Status s = r_.optional_bool(n, p, "auto_retrieve", m.auto_retrieve); !s) return s;
    if (Status s = num(n, p, "lexical_weight", m.lexical_weight, 0, false); !s) return s;
    if (m.lexical_weight > 1)
      return r_.error_at(n["lexical_weight"], YamlReader::join(p, "lexical_weight"),
                         "expected a weight between 0 and 1, got " + trim_number(m.lexical_weight));
    if (Status s = choice(n, p, "ranking", m.ranking, kMemoryRankings); !s) return s;
    if (Status s = integer(n, p, "context_messages", m.context_messages, 1); !s) return s;
    if (Status s = integer(n, p, "exact_below", m.exact_below, 0); !s) return s;
    if (Status s = r_.optional_bool(n, p, "error_reflection", m.error_reflection); !s) return s;
    if (const YAML::Node st = n["short_term"]; YamlReader::present(st)) {
      const std::string q = YamlReader::join(p, "short_term");
      ShortTermConfig& t = m.short_term;
      if (Status s = r_.expect_section(st, q, {"enabled", "context_tokens", "threshold", "keep_recent"}); !s) return s;
      if (Status s = r_.optional_bool(st, q, "enabled", t.enabled); !s) return s;
      if (Status s = integer(st, q, "context_tokens", t.context_tokens, 64); !s) return s;
      if (Status s = num(st, q, "threshold", t.threshold, 0, true); !s) return s;
      if (t.threshold > 1)
        return r_.error_at(st["threshold"], YamlReader::join(q, "threshold"),
                           "expected a share of the context budget <= 1, got " + trim_number(t.threshold));
      if (Status s = integer(st, q, "keep_recent", t.keep_recent, 1); !s) return s;
    }
    return r_.optional_string(n, p, "index_dir", m.index_dir);
  }

  Status tools(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "tools";
    ToolsConfig& t = c_.tools;
    if (Status s = r_.expect_section(n, p,
                                     {"workspace_root", "user_tools_dir", "files", "web", "web_search", "sandbox",
                                      "env", "costs", "failures", "repeatable"});
        !s)
      return s;
    if (Status s = tool_costs(n["costs"], p + ".costs"); !s) return s;
    if (Status s = r_.optional_string(n, p, "workspace_root", t.workspace_root); !s) return s;
    if (Status s = r_.optional_string(n, p, "user_tools_dir", t.user_tools_dir); !s) return s;
    if (const YAML::Node f = n["files"]; YamlReader::present(f)) {
      const std::string q = p + ".files";
      if (Status s = r_.expect_section(f, q, {"max_read_bytes", "max_write_bytes", "max_list_entries"}); !s) return s;
      if (Status s = integer(f, q, "max_read_bytes", t.max_read_bytes, 1); !s) return s;
      if (Status s = integer(f, q, "max_write_bytes", t.max_write_bytes, 1); !s) return s;
      if (Status s = integer(f, q, "max_list_entries", t.max_list_entries, 1); !s) return s;
    }
    if (const YAML::Node w = n["web"]; YamlReader::present(w)) {
      const std::string q = p + ".web";
      if (Status s = r_.expect_section(w, q, {"timeout_ms", "max_page_bytes", "allow_private_addresses"}); !s) return s;
      if (Status s = integer(w, q, "timeout_ms", t.web_timeout_ms, 1); !s) return s;
      if (Status s = integer(w, q, "max_page_bytes", t.max_page_bytes, 1); !s) return s;
      // true | false | a list of addresses and networks ("127.0.0.2", "10.1.0.0/16").
      if (const YAML::Node a = w["allow_private_addresses"]; YamlReader::present(a) && a.IsSequence()) {
        if (Status s = r_.optional_strings(w, q, "allow_private_addresses", t.web_allowed_private_networks); !s)
          return s;
      } else if (Status s = r_.optional_bool(w, q, "allow_private_addresses", t.web_allow_private_addresses); !s) {
        return r_.error_at(a, q + ".allow_private_addresses",
                           "expected true, false or a list of IP addresses and networks (e.g. [10.1.0.0/16])");
      }
    }
    if (const YAML::Node w = n["web_search"]; YamlReader::present(w)) {
      const std::string q = p + ".web_search";
      if (Status s = r_.expect_section(w, q, {"engine", "backend", "url"}); !s) return s;
      // `backend` is the key's older name, still read.
      const char* key = YamlReader::present(w["engine"]) ? "engine" : "backend";
      if (YamlReader::present(w["engine"]) && YamlReader::present(w["backend"]))
        return r_.error_at(w, q, "give 'engine' or its older name 'backend', not both");
      if (Status s = choice(w, q, key, t.web_search_engine, {"searxng"}); !s) return s;
      if (Status s = r_.optional_string(w, q, "url", t.web_search_url); !s) return s;
      if (!t.web_search_engine.empty() && t.web_search_url.empty())
        return r_.error_at(w, q, "'url' is required with a web search engine");
    }
    if (const YAML::Node b = n["sandbox"]; YamlReader::present(b)) {
      const std::string q = p + ".sandbox";
      if (Status s = r_.expect_section(
              b, q, {"timeout_ms", "cpu_seconds", "memory_mb", "max_processes", "disk_mb", "tools_network"});
          !s)
        return s;
      if (Status s = r_.optional_bool(b, q, "tools_network", t.tools_network); !s) return s;
      if (Status s = integer(b, q, "timeout_ms", t.sandbox_timeout_ms, 1); !s) return s;
      if (Status s = integer(b, q, "cpu_seconds", t.sandbox_cpu_seconds, 1); !s) return s;
      if (Status s = integer(b, q, "memory_mb", t.sandbox_memory_mb, 16); !s) return s;
      if (Status s = integer(b, q, "max_processes", t.sandbox_max_processes, 1); !s) return s;
      if (Status s = integer(b, q, "disk_mb", t.sandbox_disk_mb, 1); !s) return s;
    }
    if (const YAML::Node f = n["failures"]; YamlReader::present(f)) {
      const std::string q = p + ".failures";
      ToolFailureConfig& x = t.failures;
      if (Status s = r_.expect_section(f, q,
                                       {"max_attempts", "backoff_ms", "max_backoff_ms", "backoff_jitter",
                                        "breaker_failures", "breaker_cooldown_ms", "breaker_half_open_calls"});
          !s)
        return s;
      if (Status s = integer(f, q, "max_attempts", x.max_attempts, 1); !s) return s;
      if (Status s = integer(f, q, "backoff_ms", x.backoff_ms, 0); !s) return s;
      if (Status s = integer(f, q, "max_backoff_ms", x.max_backoff_ms, 0); !s) return s;
      if (Status s = num(f, q, "backoff_jitter", x.backoff_jitter, 0, false); !s) return s;
      if (x.backoff_jitter > 1)
        return r_.error_at(f["backoff_jitter"], q + ".backoff_jitter",
                           "expected a share of the wait between 0 and 1, got " + trim_number(x.backoff_jitter));
      if (Status s = integer(f, q, "breaker_failures", x.breaker_failures, 0); !s) return s;
      if (Status s = integer(f, q, "breaker_cooldown_ms", x.breaker_cooldown_ms, 0); !s) return s;
      if (Status s = integer(f, q, "breaker_half_open_calls", x.breaker_half_open_calls, 1); !s) return s;
      if (x.max_attempts > 10)
        return r_.error_at(f["max_attempts"], q + ".max_attempts",
                           "expected at most 10 calls of one tool call, got " + std::to_string(x.max_attempts));
    }
    if (Status s = r_.optional_strings(n, p, "repeatable", t.repeatable); !s) return s;
    if (const YAML::Node e = n["env"]; YamlReader::present(e)) {
      const std::string q = p + ".env";
      if (!e.IsSequence()) return r_.error_at(e, q, "expected a list of environment variable names");
      for (size_t i = 0; i < e.size(); ++i) {
        auto v = r_.read_string(e[i], q + "[" + std::to_string(i) + "]");
        if (!v) return v.error();
        const bool ok = !v->empty() && v->find('=') == std::string::npos && v->find(' ') == std::string::npos;
        if (!ok) return r_.error_at(e[i], q, "'" + *v + "' is not an environment variable name");
        t.env.push_back(*v);
      }
    }
    return Status::Ok();
  }

  // tools.costs: { ToolName: { invoke_expense_cost: USD per call, invoke_resource_cost: held per call } }
  Status tool_costs(const YAML::Node& n, const std::string& p) {
    if (!YamlReader::present(n)) return Status::Ok();
    if (Status s = r_.expect_map(n, p); !s) return s;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string name = it->first.Scalar();
      const std::string q = p + "." + name;
      if (Status s = r_.expect_section(it->second, q, {"invoke_expense_cost", "invoke_resource_cost"}); !s) return s;
      ToolCostConfig cost;
      if (Status s = num(it->second, q, "invoke_expense_cost", cost.invoke_expense_cost, 0, false); !s) return s;
      if (Status s = num(it->second, q, "invoke_resource_cost", cost.invoke_resource_cost, 0, false); !s) return s;
      c_.tools.costs[name] = cost;
    }
    return Status::Ok();
  }

  Status switches(const YAML::Node& n) {
    if (!YamlReader::present(n)) return Status::Ok();
    const std::string p = "switches";
    Switches& w = c_.switches;
    if (Status s = r_.expect_section(n, p,
                                     {"agent_creation", "local_agents", "cloud_agents", "tool_creation",
                                      "tool_invocation", "resource_budget", "economy_budget", "memory"});
        !s)
      return s;
    for (auto [key, field] :
         std::initializer_list<std::pair<const char*, bool*>>{{"agent_creation", &w.agent_creation},
                                                              {"local_agents", &w.local_agents},
                                                              {"cloud_agents", &w.cloud_agents},
                                                              {"tool_creation", &w.tool_creation},
                                                              {"tool_invocation", &w.tool_invocation},
                                                              {"resource_budget", &w.resource_budget},
                                                              {"economy_budget", &w.economy_budget},
                                                              {"memory", &w.memory}}) {
      if (Status s = r_.optional_bool(n, p, key, *field); !s) return s;
    }
    return Status::Ok();
  }

  YamlReader r_;
  Config& c_;
};

std::string resolve(const std::filesystem::path& base, const std::string& p) {
  if (p.empty() || base.empty()) return p;
  std::filesystem::path path(p);
  if (path.is_absolute()) return p;
  return (base / path).lexically_normal().string();
}

}  // namespace

Config default_config() {
  Config c;
  for (const auto& name : kBuiltinProviders) c.providers[name] = builtin_provider(name);
  if (c.ceo.model.empty()) c.ceo.model = env_or("KAISHA_MODEL", "");
  return c;
}

Result<Config> parse_config(const std::string& yaml_text, const std::string& source_name) {
  return parse_config(yaml_text, source_name, {});
}

Result<Config> parse_config(const std::string& yaml_text, const std::string& source_name,
                            const ConfigOverrides& overrides) {
  auto doc = parse_yaml(yaml_text, source_name);
  if (!doc) return doc.error();
  for (const auto& [key, value] : overrides) {
    const size_t dot = key.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == key.size() || key.find('.', dot + 1) != std::string::npos)
      return Error{"config", "override '" + key + "': expected section.key"};
    YAML::Node& root = *doc;
    if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
    YAML::Node section = root[key.substr(0, dot)];
    if (!section.IsMap()) section = YAML::Node(YAML::NodeType::Map);
    section[key.substr(dot + 1)] = value;
    root[key.substr(0, dot)] = section;
  }
  Config c = default_config();
  c.ceo.model.clear();  // KAISHA_MODEL applies only if the file leaves it empty
  c.source = source_name;
  ConfigParser parser(source_name, c);
  if (Status s = guard_yaml(source_name, [&] { return parser.parse(*doc); }); !s) return s.error();
  if (c.ceo.model.empty()) c.ceo.model = env_or("KAISHA_MODEL", "");
  std::filesystem::path base = std::filesystem::path(source_name).parent_path();
  // Only paths the file set are resolved; defaults stay relative to the cwd
  // or the install (see config.hpp).
  const YAML::Node& root = *doc;
  if (root.IsMap() && root["store"]) c.store_path = resolve(base, c.store_path);
  c.cost_table_file = resolve(base, c.cost_table_file);
  c.prompts_dir = resolve(base, c.prompts_dir);
  c.ceo.system_prompt_file = resolve(base, c.ceo.system_prompt_file);
  c.memory.path = resolve(base, c.memory.path);
  c.memory.index_dir = resolve(base, c.memory.index_dir);
  c.tools.workspace_root = resolve(base, c.tools.workspace_root);
  c.tools.user_tools_dir = resolve(base, c.tools.user_tools_dir);
  c.telemetry.traces.file = resolve(base, c.telemetry.traces.file);
  return c;
}

Result<Config> load_config_file(const std::string& path, const ConfigOverrides& overrides) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error{"config", "config file '" + path + "' does not exist"};
  }
  if (std::filesystem::is_directory(path, ec)) {
    return Error{"config", "config file '" + path + "' is a directory"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"config", "cannot read config file '" + path + "'"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path, overrides);
}

}  // namespace kaisha::config
