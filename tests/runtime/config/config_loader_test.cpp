#include "runtime/config/config_loader.hpp"
#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/effgen/entry/effgen_settings.hpp"
#include "runtime/pyramid/entry/pyramid_settings.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kaisha::config {
namespace {

kaisha::effgen::EffgenConfig effgen_of(const kaisha::config::Config& c) {
  return kaisha::config::strategy_settings<kaisha::effgen::EffgenConfig>(c, kaisha::effgen::kSection);
}

using ::testing::HasSubstr;

// Sets an environment variable for the scope of a test, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

std::string parse_error(const std::string& yaml, const std::string& source = "config.yaml") {
  auto c = parse_config(yaml, source);
  EXPECT_FALSE(c) << "expected an error for:\n" << yaml;
  return c ? std::string() : c.error().message;
}

TEST(ConfigDefaults, BuiltInProvidersAndBudget) {
  ScopedEnv host("OLLAMA_HOST", nullptr);
  ScopedEnv key("OPENAI_API_KEY", "sk-test");
  ScopedEnv model("KAISHA_MODEL", nullptr);
  Config c = default_config();
  ASSERT_EQ(c.providers.size(), 4u);
  EXPECT_EQ(c.providers["ollama"].dialect, "ollama");
  EXPECT_EQ(c.providers["ollama"].base_url, "http://127.0.0.1:11434");
  EXPECT_EQ(c.providers["openai"].base_url, "https://api.openai.com/v1");
  EXPECT_EQ(c.providers["openai"].api_key, "sk-test");
  EXPECT_EQ(c.providers["gemini"].base_url, "https://generativelanguage.googleapis.com/v1beta");
  EXPECT_EQ(c.providers["anthropic"].dialect, "anthropic");
  EXPECT_EQ(c.providers["anthropic"].base_url, "https://api.anthropic.com");
  EXPECT_EQ(c.ceo.model, "");
  EXPECT_DOUBLE_EQ(c.budget.expense_total, 10.0);
  EXPECT_DOUBLE_EQ(c.budget.resource_total, 100);
  EXPECT_EQ(c.budget.resource_mode, "fixed");
  EXPECT_EQ(c.retry.max_attempts, 4);
  EXPECT_TRUE(c.switches.memory);
  EXPECT_EQ(c.store_path, "kaisha.db");
}

TEST(ConfigDefaults, EnvironmentOverrides) {
  ScopedEnv host("OLLAMA_HOST", "10.0.0.5:11434");
  ScopedEnv model("KAISHA_MODEL", "ollama:qwen2.5");
  Config c = default_config();
  EXPECT_EQ(c.providers["ollama"].base_url, "http://10.0.0.5:11434");
  EXPECT_EQ(c.ceo.model, "ollama:qwen2.5");
  auto parsed = parse_config("ceo:\n  temperature: 0.5\n", "c.yaml");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->ceo.model, "ollama:qwen2.5");
  auto explicit_model = parse_config("ceo:\n  model: openai:gpt-4o-mini\n", "c.yaml");
  ASSERT_TRUE(explicit_model);
  EXPECT_EQ(explicit_model->ceo.model, "openai:gpt-4o-mini");
}

TEST(ConfigParse, EmptyDocumentIsDefaults) {
  auto c = parse_config("", "empty.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->providers.size(), 4u);
  EXPECT_EQ(c->source, "empty.yaml");
}

TEST(ConfigParse, FullFile) {
  const char* yaml = R"(store: /var/lib/kaisha/k.db
cost_table: /etc/kaisha/costs.yaml
prompts_dir: /etc/kaisha/prompts
ceo:
  model: gemini:gemini-2.0-flash
  temperature: 0.7
  max_turns: 12
  max_malformed_tool_calls: 5
  system_prompt_file: /etc/kaisha/ceo.md
employee:
  max_output_tokens: 2048
  temperature: 0.1
providers:
  ollama:
    base_url: http://gpu-box:11434
    max_concurrency: 2
  groq:
    dialect: openai
    base_url: https://api.groq.com/openai/v1
    api_key: gsk-123
    timeout_ms: 30000
    connect_timeout_ms: 1000
    headers:
      X-Team: research
retry:
  max_attempts: 6
  base_delay_ms: 0
  max_delay_ms: 1000
  max_retry_after_ms: 45000
budget:
  resource_mode: paper_16GiB_is_100
  resource_total: 250
  expense_total: 0.5
  max_agents: 4
  max_inflight_asks: 8
switches:
  agent_creation: true
  local_agents: false
  cloud_agents: yes
  tool_creation: off
  tool_invocation: true
  resource_budget: false
  economy_budget: true
  memory: false
)";
  auto r = parse_config(yaml, "/etc/kaisha/kaisha.yaml");
  ASSERT_TRUE(r) << r.error().message;
  const Config& c = *r;
  EXPECT_EQ(c.source, "/etc/kaisha/kaisha.yaml");
  EXPECT_EQ(c.store_path, "/var/lib/kaisha/k.db");
  EXPECT_EQ(c.cost_table_file, "/etc/kaisha/costs.yaml");
  EXPECT_EQ(c.prompts_dir, "/etc/kaisha/prompts");
  EXPECT_EQ(c.ceo.model, "gemini:gemini-2.0-flash");
  EXPECT_DOUBLE_EQ(c.ceo.temperature, 0.7);
  EXPECT_EQ(c.ceo.max_turns, 12);
  EXPECT_EQ(c.ceo.max_malformed_tool_calls, 5);
  EXPECT_EQ(c.ceo.system_prompt_file, "/etc/kaisha/ceo.md");
  EXPECT_EQ(c.employee.max_output_tokens, 2048);
  EXPECT_DOUBLE_EQ(c.employee.temperature, 0.1);
  ASSERT_EQ(c.providers.size(), 5u);
  const ProviderConfig& o = c.providers.at("ollama");
  EXPECT_EQ(o.dialect, "ollama");  // inherited from the built-in
  EXPECT_EQ(o.base_url, "http://gpu-box:11434");
  EXPECT_EQ(o.max_concurrency, 2);
  const ProviderConfig& g = c.providers.at("groq");
  EXPECT_EQ(g.name, "groq");
  EXPECT_EQ(g.dialect, "openai");
  EXPECT_EQ(g.base_url, "https://api.groq.com/openai/v1");
  EXPECT_EQ(g.api_key, "gsk-123");
  EXPECT_EQ(g.timeout_ms, 30000);
  EXPECT_EQ(g.connect_timeout_ms, 1000);
  EXPECT_EQ(g.headers.at("X-Team"), "research");
  EXPECT_EQ(c.retry.max_attempts, 6);
  EXPECT_EQ(c.retry.base_delay_ms, 0);
  EXPECT_EQ(c.retry.max_delay_ms, 1000);
  EXPECT_EQ(c.retry.max_retry_after_ms, 45000);
  EXPECT_EQ(c.budget.resource_mode, "paper_16GiB_is_100");
  EXPECT_DOUBLE_EQ(c.budget.resource_total, 250);
  EXPECT_DOUBLE_EQ(c.budget.expense_total, 0.5);
  EXPECT_EQ(c.budget.max_agents, 4);
  EXPECT_EQ(c.budget.max_inflight_asks, 8);
  EXPECT_TRUE(c.switches.agent_creation);
  EXPECT_FALSE(c.switches.local_agents);
  EXPECT_TRUE(c.switches.cloud_agents);
  EXPECT_FALSE(c.switches.tool_creation);
  EXPECT_TRUE(c.switches.tool_invocation);
  EXPECT_FALSE(c.switches.resource_budget);
  EXPECT_TRUE(c.switches.economy_budget);
  EXPECT_FALSE(c.switches.memory);
}

TEST(ConfigEnv, SubstitutesVariablesAndDefaults) {
  ScopedEnv key("KAISHA_TEST_GROQ_KEY", "gsk-from-env");
  ScopedEnv budget("KAISHA_TEST_BUDGET", "2.5");
  ScopedEnv unset("KAISHA_TEST_UNSET", nullptr);
  const char* yaml = R"(providers:
  groq:
    dialect: openai
    base_url: ${KAISHA_TEST_UNSET:-https://api.groq.com}/openai/v1
    api_key: ${KAISHA_TEST_GROQ_KEY}
budget:
  expense_total: ${KAISHA_TEST_BUDGET}
  resource_total: ${KAISHA_TEST_UNSET:-80}
ceo:
  model: "costs $$5"
)";
  auto c = parse_config(yaml, "env.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->providers["groq"].api_key, "gsk-from-env");
  EXPECT_EQ(c->providers["groq"].base_url, "https://api.groq.com/openai/v1");
  EXPECT_DOUBLE_EQ(c->budget.expense_total, 2.5);
  EXPECT_DOUBLE_EQ(c->budget.resource_total, 80);
  EXPECT_EQ(c->ceo.model, "costs $5");
}

TEST(ConfigEnv, UnsetVariableNamesFileLineAndVariable) {
  ScopedEnv unset("KAISHA_TEST_MISSING", nullptr);
  std::string msg = parse_error("ceo:\n  temperature: 0.2\n  model: ${KAISHA_TEST_MISSING}\n", "env.yaml");
  EXPECT_THAT(msg, HasSubstr("env.yaml:3: "));
  EXPECT_THAT(msg, HasSubstr("'KAISHA_TEST_MISSING' is not set"));
}

// yaml-cpp keeps both pairs of a repeated key and every lookup finds the
// first: the second would be silently ignored. It is an error naming both.
TEST(ConfigErrors, AKeyGivenTwiceNamesBothLines) {
  EXPECT_EQ(parse_error("budget:\n  expense_total: 1\nceo:\n  model: a\nbudget:\n  expense_total: 9\n"),
            "config.yaml:5: 'budget' is given twice (lines 1 and 5); keep one");
  EXPECT_EQ(parse_error("ceo:\n  model: a\n  temperature: 0.1\n  model: b\n"),
            "config.yaml:4: 'ceo.model' is given twice (lines 2 and 4); keep one");
  EXPECT_EQ(parse_error("ceo: { model: a, model: b }\n"),
            "config.yaml:1: 'ceo.model' is given twice (lines 1 and 1); keep one");
  EXPECT_EQ(parse_error("mcp_servers:\n  - name: a\n    command: x\n    name: b\n"),
            "config.yaml:4: 'mcp_servers[0].name' is given twice (lines 2 and 4); keep one");
  // The same key in different maps is fine.
  EXPECT_TRUE(parse_config("ceo:\n  model: a\neffgen:\n  planner_model: a\n", "config.yaml"));
}

TEST(ConfigErrors, WrongTypeNamesFileLineAndKeyPath) {
  std::string yaml;
  for (int i = 0; i < 10; ++i) yaml += "# comment line " + std::to_string(i + 1) + "\n";
  yaml += "budget:\n  expense_total: ten\n";  // line 12
  EXPECT_EQ(parse_error(yaml, "cluster.yaml"), "cluster.yaml:12: budget.expense_total: expected a number, got \"ten\"");
  EXPECT_EQ(parse_error("retry:\n  max_attempts: 2.5\n"),
            "config.yaml:2: retry.max_attempts: expected an integer, got \"2.5\"");
  EXPECT_EQ(parse_error("switches:\n  memory: maybe\n"),
            "config.yaml:2: switches.memory: expected true or false, got \"maybe\"");
  EXPECT_EQ(parse_error("ceo:\n  model: [a, b]\n"), "config.yaml:2: ceo.model: expected a string, got a list");
  EXPECT_EQ(parse_error("budget: 5\n"), "config.yaml:1: budget: expected a map, got \"5\"");
  EXPECT_EQ(parse_error("- a\n- b\n"), "config.yaml:1: expected a map, got a list");
}

TEST(ConfigErrors, UnknownKeysSuggestTheClosest) {
  EXPECT_EQ(parse_error("store: a.db\nceo:\n  model: x\n\n\n\nbudgte:\n  expense_total: 1\n"),
            "config.yaml:7: unknown key 'budgte' in top level (did you mean 'budget'?)");
  EXPECT_EQ(parse_error("budget:\n  expense_totl: 1\n"),
            "config.yaml:2: unknown key 'expense_totl' in budget (did you mean 'expense_total'?)");
  EXPECT_EQ(parse_error("providers:\n  ollama:\n    base_ur: http://x\n"),
            "config.yaml:3: unknown key 'base_ur' in providers.ollama (did you mean 'base_url'?)");
  EXPECT_EQ(parse_error("zzzzzzzz: 1\n"), "config.yaml:1: unknown key 'zzzzzzzz' in top level");
}

TEST(ConfigErrors, InvalidValues) {
  EXPECT_EQ(parse_error("providers:\n  local:\n    dialect: olama\n    base_url: http://x\n"),
            "config.yaml:3: providers.local.dialect: expected one of openai, ollama, gemini, "
            "anthropic, got \"olama\" (did you mean 'ollama'?)");
  EXPECT_THAT(parse_error("budget:\n  resource_mode: ram\n"),
              HasSubstr("config.yaml:2: budget.resource_mode: expected one of fixed, host_memory, "
                        "paper_16GiB_is_100, got \"ram\""));
  EXPECT_EQ(parse_error("retry:\n  max_attempts: 0\n"),
            "config.yaml:2: retry.max_attempts: expected an integer >= 1, got 0");
  EXPECT_EQ(parse_error("budget:\n  expense_total: -1\n"),
            "config.yaml:2: budget.expense_total: expected a number >= 0, got -1");
  EXPECT_EQ(parse_error("budget:\n  resource_total: 0\n"),
            "config.yaml:2: budget.resource_total: expected a number > 0, got 0");
  EXPECT_EQ(parse_error("providers:\n  ollama:\n    timeout_ms: 0\n"),
            "config.yaml:3: providers.ollama.timeout_ms: expected an integer >= 1, got 0");
  EXPECT_EQ(parse_error("providers:\n  groq:\n    base_url: https://api.groq.com\n"),
            "config.yaml:2: providers.groq: 'dialect' is required for a provider that is not built "
            "in (one of openai, ollama, gemini, anthropic)");
  EXPECT_EQ(parse_error("providers:\n  groq:\n    dialect: openai\n"),
            "config.yaml:2: providers.groq: 'base_url' is required for a provider that is not built in");
  EXPECT_EQ(parse_error("pyramid:\n  poor_quality: 1.5\n"),
            "config.yaml:2: pyramid.poor_quality: expected a quality score between 0 and 1, got 1.5");
  EXPECT_EQ(parse_error("pyramid:\n  poor_quality: -0.1\n"),
            "config.yaml:2: pyramid.poor_quality: expected a number >= 0, got -0.1");
  EXPECT_EQ(parse_error("pyramid:\n  quality_alpha: 1.2\n"),
            "config.yaml:2: pyramid.quality_alpha: expected a number between 0 and 1, got 1.2");
  EXPECT_EQ(parse_error("pyramid:\n  max_inline_bytes: 10\n"),
            "config.yaml:2: pyramid.max_inline_bytes: expected an integer >= 256, got 10");
  EXPECT_EQ(parse_error("retry:\n  multiplier: 0.5\n"),
            "config.yaml:2: retry.multiplier: expected a number >= 1, got 0.5");
  EXPECT_EQ(parse_error("pyramid:\n  evolution:\n    window: 4\n    min_calls: 5\n"),
            "config.yaml:4: pyramid.evolution.min_calls: expected at most evolution.window (4): a window never holds "
            "more");
  EXPECT_EQ(parse_error("pyramid:\n  evolution:\n    dominance: 1.5\n"),
            "config.yaml:3: pyramid.evolution.dominance: expected a number between 0 and 1, got 1.5");
  EXPECT_EQ(parse_error("pyramid:\n  evolution:\n    prune_belw: 0.2\n"),
            "config.yaml:3: unknown key 'prune_belw' in pyramid.evolution (did you mean 'prune_below'?)");
  // A window below the defaults lowers them: only what the file gives is checked.
  auto small = parse_config("pyramid:\n  evolution: { window: 3 }\n", "config.yaml");
  ASSERT_TRUE(small.ok()) << small.error().message;
  const auto y = strategy_settings<pyramid::PyramidConfig>(*small, "pyramid");
  EXPECT_EQ(y.evolution.min_verdicts, 3);
  EXPECT_EQ(y.evolution.min_calls, 3);
  EXPECT_EQ(parse_error("pyramid:\n  route_tie_tolerance: 2\n"),
            "config.yaml:2: pyramid.route_tie_tolerance: expected a number between 0 and 1, got 2");
  EXPECT_EQ(parse_error("pyramid:\n  training:\n    command: trainer\n"),
            "config.yaml:3: pyramid.training.command: expected a list of strings");
  EXPECT_EQ(parse_error("pyramid:\n  training:\n    command: [\"\", x]\n"),
            "config.yaml:3: pyramid.training.command: expected a program as the first element, got an empty string");
  EXPECT_EQ(parse_error("pyramid:\n  training:\n    timeout_ms: 0\n"),
            "config.yaml:3: pyramid.training.timeout_ms: expected an integer >= 1, got 0");
  auto trained =
      parse_config("pyramid:\n  training:\n    command: [train.sh, \"{model}\", \"{dataset}\"]\n", "config.yaml");
  ASSERT_TRUE(trained.ok()) << trained.error().message;
  EXPECT_EQ(strategy_settings<pyramid::PyramidConfig>(*trained, "pyramid").training.command,
            (std::vector<std::string>{"train.sh", "{model}", "{dataset}"}));
  EXPECT_EQ(parse_error("pyramid:\n  router: models\n"),
            "config.yaml:2: pyramid.router: expected one of embedding, model, both, got \"models\" (did you mean "
            "'model'?)");
}

// journal.durability: normal unless the file says full; any other word is
// refused with the allowed values.
TEST(ConfigJournalDurability, NormalByDefaultFullWhenAskedAnythingElseNamesTheChoices) {
  auto defaults = parse_config("", "config.yaml");
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->journal.durability, "normal");
  auto full = parse_config("journal:\n  durability: full\n", "config.yaml");
  ASSERT_TRUE(full) << full.error().message;
  EXPECT_EQ(full->journal.durability, "full");
  EXPECT_EQ(parse_error("journal:\n  durability: fast\n"),
            "config.yaml:2: journal.durability: expected one of normal, full, got \"fast\"");
  EXPECT_THAT(parse_error("journal:\n  durability: ful\n"), HasSubstr("(did you mean 'full'?)"));
}

TEST(ConfigErrors, YamlSyntaxErrorHasLineAndColumn) {
  std::string msg = parse_error("ceo:\n  model: x\n  temperature: [0.2\n", "bad.yaml");
  EXPECT_THAT(msg, ::testing::MatchesRegex("bad\\.yaml:[0-9]+:[0-9]+: YAML syntax error: .*"));
  // "ceo: a: b" is not YAML: the second colon (line 2, column 7, 1-based) breaks it.
  EXPECT_THAT(parse_error("store: x\nceo: a: b\n", "bad.yaml"),
              ::testing::StartsWith("bad.yaml:2:7: YAML syntax error: "));
}

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / ("kaisha-config-test-" + std::to_string(rd()));
    std::filesystem::create_directories(dir_ / "conf");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream((dir_ / name).string()) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

TEST_F(ConfigFileTest, MissingFileNamesThePath) {
  auto c = load_config_file((dir_ / "nope.yaml").string());
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, "config");
  EXPECT_THAT(c.error().message, HasSubstr((dir_ / "nope.yaml").string()));
  EXPECT_THAT(c.error().message, HasSubstr("does not exist"));
}

TEST_F(ConfigFileTest, RelativePathsResolveAgainstTheFile) {
  std::string path =
      write("conf/kaisha.yaml", "store: data/k.db\ncost_table: ../costs.yaml\nprompts_dir: /abs/prompts\n");
  auto c = load_config_file(path);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->store_path, (dir_ / "conf/data/k.db").string());
  EXPECT_EQ(c->cost_table_file, (dir_ / "costs.yaml").string());
  EXPECT_EQ(c->prompts_dir, "/abs/prompts");
  EXPECT_EQ(c->source, path);
}

TEST_F(ConfigFileTest, ErrorsInAFileNameIt) {
  std::string path = write("conf/bad.yaml", "budget:\n  max_agents: many\n");
  auto c = load_config_file(path);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, path + ":2: budget.max_agents: expected an integer, got \"many\"");
}

TEST(YamlReader, ClosestKey) {
  EXPECT_EQ(closest_key("budgte", {"budget", "store", "ceo"}), "budget");
  EXPECT_EQ(closest_key("xyzzy", {"budget", "store", "ceo"}), "");
}

}  // namespace
}  // namespace kaisha::config

namespace kaisha::config {
namespace {

TEST(ConfigLoaderStream, StreamFlagsAreRead) {
  auto c = parse_config("ceo: { model: 'ollama:llama3.2', stream: true }\nemployee: { stream: true }\n", "s.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->ceo.stream);
  EXPECT_TRUE(c->employee.stream);
  auto bad = parse_config("ceo: { stream: maybe }\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("s.yaml:1"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("ceo.stream"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace kaisha::config

namespace kaisha::config {
namespace {

TEST(ConfigLoaderEffgen, StrategyAndEffgenSection) {
  auto c = parse_config(
      "strategy: effgen\n"
      "effgen:\n"
      "  worker_model: llama3.2\n"
      "  max_concurrent: 3\n"
      "  routing: { threshold: 6.5 }\n"
      "judge: { final_answer: true, subtasks: false }\n",
      "e.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->strategy, "effgen");
  EXPECT_EQ(effgen_of(*c).worker_model, "llama3.2");
  EXPECT_FALSE(c->judge.subtasks);
  EXPECT_EQ(effgen_of(*c).max_concurrent, 3);
  EXPECT_EQ(c->judge.max_retries, 3);
  EXPECT_TRUE(c->judge.final_answer);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(ConfigLoaderEffgen, BadValuesNameTheirKey) {
  auto s = parse_config("strategy: fastest\n", "e.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("e.yaml:1"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("strategy"), std::string::npos) << s.error().message;
  auto m = parse_config("effgen:\n  max_concurrent: 0\n", "e.yaml");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("e.yaml:2"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("effgen.max_concurrent"), std::string::npos) << m.error().message;
  auto k = parse_config("effgen:\n  judges: true\n", "e.yaml");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("judges"), std::string::npos) << k.error().message;
}

}  // namespace
}  // namespace kaisha::config

namespace kaisha::config::strategy_settings_test {
namespace {

using ::testing::HasSubstr;

// A strategy's section is read by its own catalog entry into typed settings,
// which are there with their defaults when the file has no such section.
TEST(StrategySettings, EachSectionIsReadByItsEntryAndDefaultsWhenAbsent) {
  auto c = parse_config("strategy: pyramid\npyramid:\n  library: lib.yaml\n  max_nudges: 2\n  router: both\n",
                        "config.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto pyramid = strategy_settings<kaisha::pyramid::PyramidConfig>(*c, kaisha::pyramid::kSection);
  EXPECT_EQ(pyramid.library, "lib.yaml");
  EXPECT_EQ(pyramid.max_nudges, 2);
  EXPECT_EQ(pyramid.router, "both");
  EXPECT_EQ(pyramid.max_calls_per_turn, 10);  // not in the file: its default
  ASSERT_EQ(c->strategy_settings.count(kaisha::effgen::kSection), 1u);
  EXPECT_EQ(strategy_settings<kaisha::effgen::EffgenConfig>(*c, kaisha::effgen::kSection).max_concurrent, 5);
  EXPECT_EQ(c->strategy_sections.count(kaisha::effgen::kSection), 0u);  // no JSON for a section not written
  ASSERT_EQ(c->strategy_sections.count(kaisha::pyramid::kSection), 1u);
  EXPECT_EQ(c->strategy_sections.at(kaisha::pyramid::kSection).at("max_nudges"), 2);
}

TEST(StrategySettings, ASectionThatIsNotAMapIsRefusedWhereItIs) {
  auto c = parse_config("strategy: effgen\neffgen: [1, 2]\n", "config.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("config.yaml:2: effgen"));
}

// A Config made in code holds no settings: a strategy then gets its defaults.
TEST(StrategySettings, AConfigMadeInCodeGivesTheDefaults) {
  Config c;
  EXPECT_EQ(strategy_settings<kaisha::pyramid::PyramidConfig>(c, kaisha::pyramid::kSection).max_nudges, 5);
}

}  // namespace
}  // namespace kaisha::config::strategy_settings_test

namespace kaisha::config::overrides_test {

TEST(ConfigOverrides, SetKeysOverTheFileAndCreateMissingSections) {
  auto c = parse_config("switches: { memory: true, agent_creation: true }\nbudget: { expense_total: 3 }\n", "c.yaml",
                        {{"switches.memory", "false"}, {"judge.subtasks", "false"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->switches.memory);
  EXPECT_TRUE(c->switches.agent_creation);
  EXPECT_FALSE(c->judge.subtasks);
  EXPECT_DOUBLE_EQ(c->budget.expense_total, 3);
  auto empty = parse_config("", "c.yaml", {{"switches.tool_creation", "false"}});
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_FALSE(empty->switches.tool_creation);
}

TEST(ConfigOverrides, AreCheckedLikeTheFileAndABadKeyIsNamed) {
  auto wrong = parse_config("", "c.yaml", {{"switches.memory", "maybe"}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("switches.memory"), std::string::npos) << wrong.error().message;
  auto unknown = parse_config("", "c.yaml", {{"switches.memroy", "false"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("did you mean 'memory'"), std::string::npos) << unknown.error().message;
  auto flat = parse_config("", "c.yaml", {{"memory", "false"}});
  ASSERT_FALSE(flat.ok());
  EXPECT_EQ(flat.error().message, "override 'memory': expected section.key");
}

}  // namespace kaisha::config::overrides_test
