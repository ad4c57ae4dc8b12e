#include "runtime/config/telemetry_config.hpp"

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"

namespace kaisha::config {
namespace {

// A header name is an HTTP token and a value one line: anything else would
// corrupt the request (or smuggle another header into it).
bool valid_header_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c <= ' ' || c == ':' || c == 0x7f) return false;
  return true;
}

bool one_line(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

Status read_headers(const YAML::Node& n, const YamlReader& r, const std::string& p,
                    std::map<std::string, std::string>& out) {
  if (!n.IsMap()) return r.error_at(n, p, "expected a map of Header-Name: value");
  for (const auto& kv : n) {
    auto name = r.read_string(kv.first, p);
    if (!name) return name.error();
    const std::string q = YamlReader::join(p, *name);
    if (!valid_header_name(*name)) return r.error_at(kv.first, q, "'" + *name + "' is not an HTTP header name");
    auto value = r.read_string(kv.second, q);
    if (!value) return value.error();
    if (!one_line(*value)) return r.error_at(kv.second, q, "a header value must be one line");
    out[*name] = *value;
  }
  return Status::Ok();
}

Status read_traces(const YAML::Node& n, const YamlReader& r, TracesConfig& t) {
  const std::string p = "telemetry.traces";
  if (Status s = r.expect_section(n, p, {"endpoint", "file", "headers", "include_text"}); !s) return s;
  if (Status s = r.optional_string(n, p, "endpoint", t.endpoint); !s) return s;
  if (Status s = r.optional_string(n, p, "file", t.file); !s) return s;
  if (!t.endpoint.empty() && !t.file.empty())
    return r.error_at(n, p, "give 'endpoint' (an OTLP collector) or 'file' (a trace file), not both");
  if (!t.endpoint.empty() && t.endpoint.rfind("http://", 0) != 0 && t.endpoint.rfind("https://", 0) != 0)
    return r.error_at(
        n["endpoint"], YamlReader::join(p, "endpoint"),
        "expected an http:// or https:// URL (e.g. http://127.0.0.1:4318/v1/traces), got \"" + t.endpoint + "\"");
  if (const YAML::Node h = n["headers"]; YamlReader::present(h)) {
    if (t.endpoint.empty())
      return r.error_at(h, YamlReader::join(p, "headers"), "'headers' applies only with 'endpoint'");
    if (Status s = read_headers(h, r, YamlReader::join(p, "headers"), t.headers); !s) return s;
  }
  return r.optional_bool(n, p, "include_text", t.include_text);
}

}  // namespace

Status read_telemetry_config(const YAML::Node& n, const YamlReader& r, TelemetryConfig& out) {
  if (!YamlReader::present(n)) return Status::Ok();
  if (Status s = r.expect_section(n, "telemetry", {"traces"}); !s) return s;
  if (const YAML::Node t = n["traces"]; YamlReader::present(t)) return read_traces(t, r, out.traces);
  return Status::Ok();
}

}  // namespace kaisha::config
