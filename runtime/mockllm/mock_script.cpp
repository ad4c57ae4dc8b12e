#include "runtime/mockllm/mock_script.hpp"

#include <fstream>
#include <initializer_list>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_json.hpp"
#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::mockllm {

bool TextPattern::matches(std::string_view value, bool whole) const {
  if (regex) return std::regex_search(value.begin(), value.end(), *regex);
  if (whole) return value == source;
  return value.find(source) != std::string_view::npos;
}

std::string MockRule::label(size_t index) const { return name.empty() ? "rule #" + std::to_string(index + 1) : name; }

namespace {

// Thrown inside the parser only; parse_mock_script turns it into an Error.
struct ScriptError {
  std::string message;
};

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    int line = at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    throw ScriptError{source_ + ":" + std::to_string(line) + ": " + what};
  }

  void check_keys(const YAML::Node& map, const char* where, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) fail(map, std::string(where) + " must be a mapping");
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        fail(kv.first, "unknown key '" + key + "' in " + where + " (allowed: " + list + ")");
      }
    }
  }

  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, "'" + key + "' must be a text value");
    return n.Scalar();
  }

  int integer(const YAML::Node& n, const std::string& key, int min) const {
    if (!n.IsScalar()) fail(n, "'" + key + "' must be a number");
    try {
      size_t used = 0;
      int v = std::stoi(n.Scalar(), &used);
      if (used != n.Scalar().size()) throw std::invalid_argument("trailing");
      if (v < min) fail(n, "'" + key + "' must be at least " + std::to_string(min) + ", not " + n.Scalar());
      return v;
    } catch (const std::logic_error&) {
      fail(n, "'" + key + "' must be a whole number, not \"" + n.Scalar() + "\"");
    }
  }

  bool boolean(const YAML::Node& n, const std::string& key) const {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (s == "true" || s == "True" || s == "yes") return true;
      if (s == "false" || s == "False" || s == "no") return false;
    }
    fail(n, "'" + key + "' must be true or false");
  }

  TextPattern pattern(const YAML::Node& n, const std::string& key) const {
    TextPattern p;
    p.source = text(n, key);
    if (p.source.rfind("re:", 0) == 0) {
      try {
        p.regex = std::make_shared<const std::regex>(p.source.substr(3), std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        fail(n, "'" + key + "' has a bad regex \"" + p.source.substr(3) + "\": " + e.what());
      }
    }
    return p;
  }

  json to_json(const YAML::Node& n) const { return config::yaml_to_json(n); }

  MockMatch match(const YAML::Node& n) const {
    check_keys(
        n, "match",
        {"model", "system", "last_user", "last_tool", "last_tool_name", "last_role", "any", "turn", "has_tools"});
    MockMatch m;
    auto pat = [&](const char* key, std::optional<TextPattern>& out) {
      if (n[key]) out = pattern(n[key], key);
    };
    pat("model", m.model);
    pat("system", m.system);
    pat("last_user", m.last_user);
    pat("last_tool", m.last_tool);
    pat("last_tool_name", m.last_tool_name);
    pat("last_role", m.last_role);
    pat("any", m.any);
    if (m.last_role && !m.last_role->regex) {
      const std::string& r = m.last_role->source;
      if (r != "system" && r != "user" && r != "assistant" && r != "tool")
        fail(n["last_role"], "'last_role' must be system, user, assistant or tool, not \"" + r + "\"");
    }
    if (n["turn"]) m.turn = integer(n["turn"], "turn", 0);
    if (n["has_tools"]) m.has_tools = boolean(n["has_tools"], "has_tools");
    return m;
  }

  MockReply reply(const YAML::Node& n, const char* where) const {
    check_keys(n, where, {"text", "tool_calls", "usage", "omit_usage", "latency_ms"});
    MockReply r;
    if (n["text"]) r.text = text(n["text"], "text");
    if (const auto& tcs = n["tool_calls"]) {
      if (!tcs.IsSequence()) fail(tcs, "'tool_calls' must be a list");
      for (const auto& tc : tcs) {
        check_keys(tc, "tool call", {"name", "arguments"});
        MockToolCall c;
        if (!tc["name"]) fail(tc, "tool call needs a 'name'");
        c.name = text(tc["name"], "name");
        const auto& a = tc["arguments"];
        if (!a || a.IsNull())
          c.arguments = "{}";
        else if (a.IsScalar()) {
          c.arguments = a.Scalar();
          c.verbatim = true;
        } else if (a.IsMap())
          c.arguments = to_json(a).dump();
        else
          fail(a, "'arguments' must be a mapping (sent as a JSON object) or a string (sent verbatim)");
        r.tool_calls.push_back(std::move(c));
      }
    }
    if (const auto& u = n["usage"]) {
      check_keys(u, "usage", {"input_tokens", "output_tokens"});
      llm::Usage usage;
      if (u["input_tokens"]) usage.input_tokens = integer(u["input_tokens"], "input_tokens", 0);
      if (u["output_tokens"]) usage.output_tokens = integer(u["output_tokens"], "output_tokens", 0);
      r.usage = usage;
    }
    if (n["omit_usage"]) r.omit_usage = boolean(n["omit_usage"], "omit_usage");
    if (n["latency_ms"]) r.latency_ms = integer(n["latency_ms"], "latency_ms", 0);
    return r;
  }

  MockFault fault(const YAML::Node& n) const {
    check_keys(n, "fault", {"status", "retry_after", "kind", "latency_ms"});
    MockFault f;
    if (n["status"]) f.status = integer(n["status"], "status", 100);
    if (f.status > 599) fail(n["status"], "'status' must be an HTTP status (100-599)");
    if (n["retry_after"]) f.retry_after = integer(n["retry_after"], "retry_after", 0);
    if (n["kind"]) {
      f.kind = text(n["kind"], "kind");
      if (f.kind != "hang" && f.kind != "malformed_json" && f.kind != "cut_stream" && f.kind != "close")
        fail(n["kind"], "'kind' must be hang, malformed_json, cut_stream or close, not \"" + f.kind + "\"");
    }
    if (n["latency_ms"]) f.latency_ms = integer(n["latency_ms"], "latency_ms", 0);
    if (f.status == 0 && f.kind.empty()) fail(n, "fault needs a 'status' or a 'kind'");
    return f;
  }

  MockRule rule(const YAML::Node& n) const {
    check_keys(n, "rule", {"name", "match", "times", "reply", "fault"});
    MockRule r;
    r.line = n.Mark().line + 1;
    if (n["name"]) r.name = text(n["name"], "name");
    if (n["match"]) r.match = match(n["match"]);
    if (n["times"]) r.times = integer(n["times"], "times", 1);
    if (n["reply"]) r.reply = reply(n["reply"], "reply");
    if (n["fault"]) r.fault = fault(n["fault"]);
    if (r.reply && r.fault) fail(n, "rule has both 'reply' and 'fault'; give one");
    if (!r.reply && !r.fault) fail(n, "rule needs a 'reply' or a 'fault'");
    return r;
  }

  MockScript script(const YAML::Node& root) const {
    MockScript s;
    s.source = source_;
    if (!root || root.IsNull()) return s;
    check_keys(root, "script", {"defaults", "rules", "default_reply"});
    if (const auto& d = root["defaults"]) {
      check_keys(d, "defaults", {"latency_ms"});
      if (d["latency_ms"]) s.default_latency_ms = integer(d["latency_ms"], "latency_ms", 0);
    }
    if (const auto& rules = root["rules"]) {
      if (!rules.IsSequence()) fail(rules, "'rules' must be a list");
      for (const auto& r : rules) s.rules.push_back(rule(r));
    }
    if (root["default_reply"]) s.default_reply = reply(root["default_reply"], "default_reply");
    return s;
  }

 private:
  std::string source_;
};

}  // namespace

Result<MockScript> parse_mock_script(std::string_view text, const std::string& source_name) {
  Parser p(source_name);
  try {
    YAML::Node root = YAML::Load(std::string(text));
    if (Status s = config::check_unique_keys(root, source_name); !s) return s.error();
    return p.script(root);
  } catch (const ScriptError& e) {
    return Error{"config", e.message};
  } catch (const YAML::Exception& e) {
    return Error{"config", source_name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg};
  } catch (const std::exception& e) {
    return Error{"config", source_name + ": " + e.what()};
  }
}

Result<MockScript> load_mock_script(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"config", "cannot read mock script " + path};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_mock_script(ss.str(), path);
}

}  // namespace kaisha::mockllm
