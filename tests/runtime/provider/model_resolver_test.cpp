#include "runtime/provider/model_resolver.hpp"

#include <gtest/gtest.h>

#include "runtime/provider/llm_client.hpp"

namespace kaisha::provider {
namespace {

config::Config two_providers() {
  config::Config cfg;
  config::ProviderConfig ollama;
  ollama.name = "ollama";
  ollama.dialect = "ollama";
  ollama.base_url = "http://127.0.0.1:11434";
  cfg.providers["ollama"] = ollama;
  config::ProviderConfig openai;
  openai.name = "openai";
  openai.dialect = "openai";
  openai.base_url = "https://api.openai.com/v1";
  cfg.providers["openai"] = openai;  // no key
  return cfg;
}

TEST(ModelResolver, Loopback) {
  EXPECT_TRUE(is_loopback_url("http://127.0.0.1:8080/v1"));
  EXPECT_TRUE(is_loopback_url("http://localhost/v1"));
  EXPECT_TRUE(is_loopback_url("http://[::1]:9000"));
  EXPECT_TRUE(is_loopback_url("http://user@127.0.0.2"));
  EXPECT_FALSE(is_loopback_url("https://api.openai.com/v1"));
  EXPECT_FALSE(is_loopback_url("http://127.example.com/"));
  EXPECT_FALSE(is_loopback_url("http://10.0.0.5:11434"));
}

TEST(ModelResolver, ResolvesKnownProvider) {
  auto cfg = two_providers();
  auto m = resolve_model(cfg, "ollama:llama3.2:3b");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->ref.model, "llama3.2:3b");
  EXPECT_EQ(m->dialect->name(), "ollama");
  EXPECT_EQ(m->endpoint.base_url, "http://127.0.0.1:11434");
}

TEST(CheckModel, ReportsEachProblemClearly) {
  LlmClient client(two_providers());
  EXPECT_TRUE(client.check_model("ollama:llama3.2").ok());

  Status bad_ref = client.check_model("llama3.2");
  ASSERT_FALSE(bad_ref.ok());
  EXPECT_EQ(bad_ref.error().code, "config");

  Status unknown = client.check_model("foo:bar");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message,
            "unknown provider 'foo' in model ref 'foo:bar' (configured providers: ollama, openai)");

  Status no_key = client.check_model("openai:gpt-4o-mini");
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.error().message.find("needs an API key"), std::string::npos) << no_key.error().message;
  EXPECT_NE(no_key.error().message.find("OPENAI_API_KEY"), std::string::npos) << no_key.error().message;
}

TEST(CheckModel, KeyRulesPerDialect) {
  config::Config cfg;
  auto add = [&](std::string name, std::string dialect, std::string url, std::string key) {
    config::ProviderConfig p;
    p.name = name;
    p.dialect = dialect;
    p.base_url = url;
    p.api_key = key;
    cfg.providers[name] = p;
  };
  add("local", "openai", "http://localhost:8000/v1", "");
  add("groq", "openai", "https://api.groq.com/openai/v1", "");
  add("gemini", "gemini", "http://127.0.0.1:1/v1beta", "");
  add("anthropic", "anthropic", "https://api.anthropic.com", "sk");
  add("weird", "klingon", "http://127.0.0.1:1", "");
  add("nourl", "ollama", "", "");
  LlmClient client(cfg);
  EXPECT_TRUE(client.check_model("local:qwen").ok());
  EXPECT_FALSE(client.check_model("groq:llama").ok());
  EXPECT_NE(client.check_model("groq:llama").error().message.find("providers.groq.api_key"), std::string::npos);
  EXPECT_FALSE(client.check_model("gemini:flash").ok()) << "gemini always needs a key";
  EXPECT_TRUE(client.check_model("anthropic:claude").ok());
  Status weird = client.check_model("weird:x");
  ASSERT_FALSE(weird.ok());
  EXPECT_NE(weird.error().message.find("unknown dialect 'klingon'"), std::string::npos) << weird.error().message;
  EXPECT_NE(client.check_model("nourl:x").error().message.find("no base_url"), std::string::npos);
}

TEST(CheckModel, NoProvidersConfigured) {
  LlmClient client(config::Config{});
  Status s = client.check_model("ollama:x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no providers are configured"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace kaisha::provider
