// The `telemetry:` section: where kaisha sends the spans it records
// (runtime/telemetry). All optional; without `traces.endpoint` or
// `traces.file` nothing is traced.
//
//   telemetry:
//     traces:
//       endpoint: http://127.0.0.1:4318/v1/traces   # OTLP/HTTP JSON; or
//       file: traces.jsonl                          # one OTLP request per line
//       headers: {Authorization: "Bearer x"}        # with endpoint only
//       include_text: false   # prompts and answers in spans (default off)
#pragma once

#include <map>
#include <string>

#include "runtime/core/result.hpp"

namespace YAML {
class Node;
}

namespace kaisha::config {

class YamlReader;

struct TracesConfig {
  std::string endpoint;  // an OTLP/HTTP traces URL, http:// or https://
  std::string file;      // a trace file; a relative path is resolved against the config file's directory
  std::map<std::string, std::string> headers;  // extra HTTP headers sent to the endpoint
  // Prompts and answers (gen_ai.input.messages / gen_ai.output.messages) in
  // spans. Off by default: a trace backend is often readable by more people
  // than the conversations are meant for.
  bool include_text = false;

  bool enabled() const { return !endpoint.empty() || !file.empty(); }
};

struct TelemetryConfig {
  TracesConfig traces;
};

// Reads the `telemetry` map. Errors name "<file>:<line>: telemetry.traces.key".
Status read_telemetry_config(const YAML::Node& node, const YamlReader& reader, TelemetryConfig& out);

}  // namespace kaisha::config
