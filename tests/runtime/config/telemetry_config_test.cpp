// The `telemetry:` section: an OTLP endpoint or a trace file, headers, the
// include_text switch, and a file:line:key error for every bad field.
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config {
namespace telemetry_config_test {

TEST(TelemetryConfig, OffByDefault) {
  auto c = parse_config("store: x.db\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->telemetry.traces.enabled());
  EXPECT_TRUE(c->telemetry.traces.endpoint.empty());
  EXPECT_TRUE(c->telemetry.traces.file.empty());
  EXPECT_TRUE(c->telemetry.traces.headers.empty());
  EXPECT_FALSE(c->telemetry.traces.include_text);
}

TEST(TelemetryConfig, ReadsAnEndpointWithHeaders) {
  ::setenv("KAISHA_TEST_OTLP_TOKEN", "sekrit", 1);
  auto c = parse_config(R"(telemetry:
  traces:
    endpoint: http://127.0.0.1:4318/v1/traces
    headers: {Authorization: "Bearer ${KAISHA_TEST_OTLP_TOKEN}", X-Team: a}
    include_text: true
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const TracesConfig& t = c->telemetry.traces;
  EXPECT_TRUE(t.enabled());
  EXPECT_EQ(t.endpoint, "http://127.0.0.1:4318/v1/traces");
  EXPECT_EQ(t.headers.at("Authorization"), "Bearer sekrit");
  EXPECT_EQ(t.headers.at("X-Team"), "a");
  EXPECT_TRUE(t.include_text);
}

TEST(TelemetryConfig, AFileIsResolvedAgainstTheConfigFilesDirectory) {
  auto c = parse_config("telemetry:\n  traces:\n    file: traces.jsonl\n", "/etc/kaisha/c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->telemetry.traces.enabled());
  EXPECT_EQ(c->telemetry.traces.file, "/etc/kaisha/traces.jsonl");
  EXPECT_TRUE(c->telemetry.traces.endpoint.empty());
  auto absolute = parse_config("telemetry:\n  traces:\n    file: /var/log/t.jsonl\n", "/etc/kaisha/c.yaml");
  ASSERT_TRUE(absolute.ok()) << absolute.error().message;
  EXPECT_EQ(absolute->telemetry.traces.file, "/var/log/t.jsonl");
}

TEST(TelemetryConfig, AnEmptySectionLeavesTracingOff) {
  for (const char* yaml :
       {"telemetry:\n", "telemetry:\n  traces:\n", "telemetry:\n  traces:\n    include_text: false\n"}) {
    auto c = parse_config(yaml, "c.yaml");
    ASSERT_TRUE(c.ok()) << yaml << c.error().message;
    EXPECT_FALSE(c->telemetry.traces.enabled()) << yaml;
  }
}

void expect_error(const std::string& yaml, const std::string& needle) {
  auto c = parse_config(yaml, "c.yaml");
  ASSERT_FALSE(c.ok()) << yaml;
  EXPECT_EQ(c.error().code, "config");
  EXPECT_NE(c.error().message.find(needle), std::string::npos) << c.error().message;
}

TEST(TelemetryConfig, EveryBadFieldNamesFileLineAndKey) {
  expect_error("telemetry: on\n", "c.yaml:1: telemetry: expected a map");
  expect_error("telemetry:\n  trace: {}\n", "c.yaml:2: unknown key 'trace' in telemetry (did you mean 'traces'?)");
  expect_error("telemetry:\n  traces: [x]\n", "c.yaml:2: telemetry.traces: expected a map");
  expect_error("telemetry:\n  traces:\n    endpont: http://h/v1/traces\n",
               "c.yaml:3: unknown key 'endpont' in telemetry.traces (did you mean 'endpoint'?)");
  expect_error("telemetry:\n  traces:\n    endpoint: ftp://h/v1/traces\n",
               "c.yaml:3: telemetry.traces.endpoint: expected an http:// or https:// URL");
  expect_error("telemetry:\n  traces:\n    endpoint: 127.0.0.1:4318\n",
               "telemetry.traces.endpoint: expected an http://");
  expect_error("telemetry:\n  traces:\n    endpoint: [a]\n", "c.yaml:3: telemetry.traces.endpoint: expected");
  expect_error("telemetry:\n  traces:\n    endpoint: http://h/v1/traces\n    file: t.jsonl\n",
               "c.yaml:3: telemetry.traces: give 'endpoint' (an OTLP collector) or 'file' (a trace file), not both");
  expect_error("telemetry:\n  traces:\n    file: t.jsonl\n    headers: {A: b}\n",
               "c.yaml:4: telemetry.traces.headers: 'headers' applies only with 'endpoint'");
  expect_error("telemetry:\n  traces:\n    endpoint: http://h/v1/traces\n    headers: [A]\n",
               "telemetry.traces.headers: expected a map");
  expect_error("telemetry:\n  traces:\n    endpoint: http://h/v1/traces\n    headers: {\"Bad Name\": b}\n",
               "telemetry.traces.headers.Bad Name: 'Bad Name' is not an HTTP header name");
  expect_error("telemetry:\n  traces:\n    endpoint: http://h/v1/traces\n    headers: {A: \"b\\r\\nX-Evil: 1\"}\n",
               "telemetry.traces.headers.A: a header value must be one line");
  expect_error("telemetry:\n  traces:\n    endpoint: http://h/v1/traces\n    headers: {A: [b]}\n",
               "telemetry.traces.headers.A: expected");
  expect_error("telemetry:\n  traces:\n    include_text: maybe\n",
               "c.yaml:3: telemetry.traces.include_text: expected true or false, got \"maybe\"");
}

}  // namespace telemetry_config_test
}  // namespace kaisha::config
