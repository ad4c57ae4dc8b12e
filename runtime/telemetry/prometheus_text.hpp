// Reads the Prometheus text exposition format (version 0.0.4): what
// MetricsRegistry::render writes and what any scraper of `/metrics` reads.
// The tests check kaisha's endpoints with it, so it is strict: a line that a
// Prometheus server would reject is an error naming its line number.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::telemetry {

struct ParsedSample {
  std::string name;                           // as written, with _bucket/_sum/_count suffixes
  std::map<std::string, std::string> labels;  // unescaped
  double value = 0;
};

struct ParsedExposition {
  std::vector<ParsedSample> samples;         // in order
  std::map<std::string, std::string> types;  // family name -> counter|gauge|histogram|summary|untyped
  std::map<std::string, std::string> help;   // family name -> help text, unescaped

  // The value of the one sample named `name` whose labels include every
  // pair of `labels`; nullopt when none or several match.
  std::optional<double> value(std::string_view name, const std::map<std::string, std::string>& labels = {}) const;
  // The sum over every sample named `name` whose labels include `labels`.
  double sum(std::string_view name, const std::map<std::string, std::string>& labels = {}) const;
};

Result<ParsedExposition> parse_prometheus_text(std::string_view text);

}  // namespace kaisha::telemetry
