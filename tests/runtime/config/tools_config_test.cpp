// The `tools:` section: every key read, relative paths resolved against the
// file, mistakes reported with file:line and the key path.
#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config {
namespace {

TEST(ToolsConfig, DefaultsWithoutASection) {
  auto c = parse_config("store: x.db\n", "/etc/kaisha/config.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->tools.workspace_root, "");
  EXPECT_EQ(c->tools.sandbox_timeout_ms, 10000);
  EXPECT_EQ(c->tools.web_search_engine, "");
  EXPECT_FALSE(c->tools.tools_network);
  EXPECT_FALSE(c->tools.web_allow_private_addresses);
  EXPECT_TRUE(c->tools.web_allowed_private_networks.empty());
  EXPECT_EQ(c->tools.sandbox_disk_mb, 1024);
}

TEST(ToolsConfig, PrivateAddressesMayBeAllowedByNetwork) {
  auto c = parse_config("tools:\n  web:\n    allow_private_addresses: [127.0.0.2, 10.1.0.0/16]\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->tools.web_allow_private_addresses);
  EXPECT_EQ(c->tools.web_allowed_private_networks, (std::vector<std::string>{"127.0.0.2", "10.1.0.0/16"}));
}

// A web section that leaves allow_private_addresses out once aborted the
// process (yaml-cpp threw on the missing key); found by the config_yaml fuzzer.
TEST(ToolsConfig, AWebSectionWithoutPrivateAddressesKeepsTheDefault) {
  auto c = parse_config("tools:\n  web: { timeout_ms: 500 }\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->tools.web_timeout_ms, 500);
  EXPECT_FALSE(c->tools.web_allow_private_addresses);
  EXPECT_TRUE(c->tools.web_allowed_private_networks.empty());
}

TEST(ToolsConfig, FailuresAndRepeatableToolsAreReadAndMistakesNamed) {
  auto d = parse_config("store: x.db\n", "c.yaml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tools.failures.max_attempts, 3);
  EXPECT_EQ(d->tools.failures.backoff_jitter, 0.5);
  EXPECT_EQ(d->tools.failures.breaker_failures, 5);
  EXPECT_EQ(d->tools.failures.breaker_cooldown_ms, 60000);
  EXPECT_TRUE(d->tools.repeatable.empty());
  auto c = parse_config(R"(
tools:
  failures: { max_attempts: 4, backoff_ms: 100, max_backoff_ms: 800, backoff_jitter: 0.25, breaker_failures: 0,
              breaker_cooldown_ms: 5000, breaker_half_open_calls: 2 }
  repeatable: [weather__get_forecast]
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const ToolFailureConfig& f = c->tools.failures;
  EXPECT_EQ(f.max_attempts, 4);
  EXPECT_EQ(f.backoff_ms, 100);
  EXPECT_EQ(f.max_backoff_ms, 800);
  EXPECT_EQ(f.backoff_jitter, 0.25);
  EXPECT_EQ(f.breaker_failures, 0);
  EXPECT_EQ(f.breaker_cooldown_ms, 5000);
  EXPECT_EQ(f.breaker_half_open_calls, 2);
  EXPECT_EQ(c->tools.repeatable, (std::vector<std::string>{"weather__get_forecast"}));

  auto zero = parse_config("tools:\n  failures: { max_attempts: 0 }\n", "c.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("c.yaml:2"), std::string::npos) << zero.error().message;
  EXPECT_NE(zero.error().message.find("tools.failures.max_attempts"), std::string::npos) << zero.error().message;
  auto typo = parse_config("tools:\n  failures: { retries: 2 }\n", "c.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("retries"), std::string::npos) << typo.error().message;
  auto many = parse_config("tools:\n  failures: { max_attempts: 50 }\n", "c.yaml");
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.error().message.find("at most 10"), std::string::npos) << many.error().message;
  auto jitter = parse_config("tools:\n  failures: { backoff_jitter: 1.5 }\n", "c.yaml");
  ASSERT_FALSE(jitter.ok());
  EXPECT_NE(jitter.error().message.find("tools.failures.backoff_jitter"), std::string::npos) << jitter.error().message;
  EXPECT_NE(jitter.error().message.find("between 0 and 1"), std::string::npos) << jitter.error().message;
}

TEST(ToolsConfig, ReadsEveryKey) {
  auto c = parse_config(R"(
tools:
  workspace_root: work
  user_tools_dir: /var/lib/kaisha/tools
  files: { max_read_bytes: 100, max_write_bytes: 200, max_list_entries: 3 }
  web: { timeout_ms: 500, max_page_bytes: 4096, allow_private_addresses: true }
  web_search: { backend: searxng, url: "http://127.0.0.1:8888" }
  sandbox: { timeout_ms: 3000, cpu_seconds: 2, memory_mb: 128, max_processes: 8, disk_mb: 256, tools_network: true }
  env: [GITHUB_TOKEN, WEATHER_API_KEY]
)",
                        "/etc/kaisha/config.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const ToolsConfig& t = c->tools;
  EXPECT_EQ(t.workspace_root, "/etc/kaisha/work");
  EXPECT_EQ(t.user_tools_dir, "/var/lib/kaisha/tools");
  EXPECT_EQ(t.max_read_bytes, 100);
  EXPECT_EQ(t.max_write_bytes, 200);
  EXPECT_EQ(t.max_list_entries, 3);
  EXPECT_EQ(t.web_timeout_ms, 500);
  EXPECT_EQ(t.max_page_bytes, 4096);
  EXPECT_TRUE(t.web_allow_private_addresses);
  EXPECT_EQ(t.web_search_engine, "searxng");
  EXPECT_EQ(t.web_search_url, "http://127.0.0.1:8888");
  EXPECT_EQ(t.sandbox_timeout_ms, 3000);
  EXPECT_EQ(t.sandbox_cpu_seconds, 2);
  EXPECT_EQ(t.sandbox_memory_mb, 128);
  EXPECT_EQ(t.sandbox_max_processes, 8);
  EXPECT_EQ(t.sandbox_disk_mb, 256);
  EXPECT_TRUE(t.tools_network);
  EXPECT_EQ(t.env, (std::vector<std::string>{"GITHUB_TOKEN", "WEATHER_API_KEY"}));
}

TEST(ToolsConfig, TheSearchEngineKeyAndItsOlderName) {
  for (const char* key : {"engine", "backend"}) {
    auto c =
        parse_config(std::string("tools:\n  web_search: { ") + key + ": searxng, url: \"http://h:1\" }\n", "c.yaml");
    ASSERT_TRUE(c.ok()) << key << ": " << c.error().message;
    EXPECT_EQ(c->tools.web_search_engine, "searxng") << key;
  }
}

TEST(ToolsConfig, MistakesNameFileLineAndKey) {
  struct Case {
    const char* yaml;
    const char* words;
  } cases[] = {
      {"tools:\n  sandbx: {}\n", "c.yaml:2: unknown key 'sandbx' in tools (did you mean 'sandbox'?)"},
      {"tools:\n  web_search: { backend: bing, url: x }\n",
       "c.yaml:2: tools.web_search.backend: expected one of searxng"},
      {"tools:\n  web_search: { backend: searxng }\n", "'url' is required"},
      {"tools:\n  web_search: { engine: bing, url: x }\n",
       "c.yaml:2: tools.web_search.engine: expected one of searxng"},
      {"tools:\n  web_search: { engine: searxng, backend: searxng, url: x }\n",
       "give 'engine' or its older name 'backend', not both"},
      {"tools:\n  sandbox: { timeout_ms: 0 }\n", "tools.sandbox.timeout_ms: expected an integer >= 1, got 0"},
      {"tools:\n  files:\n    max_read_bytes: lots\n", "c.yaml:3: tools.files.max_read_bytes"},
      {"tools:\n  web:\n    allow_private_addresses: sometimes\n",
       "c.yaml:3: tools.web.allow_private_addresses: expected true, false or a list of IP addresses"},
      {"tools:\n  env: GITHUB_TOKEN\n", "tools.env: expected a list of environment variable names"},
      {"tools:\n  env: [\"A=B\"]\n", "'A=B' is not an environment variable name"},
  };
  for (const auto& c : cases) {
    auto r = parse_config(c.yaml, "c.yaml");
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << c.yaml << "\n" << r.error().message;
  }
}

}  // namespace
}  // namespace kaisha::config
