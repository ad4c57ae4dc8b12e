// The `memory:` section of the configuration (runtime/config).
#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config {
namespace {

TEST(MemoryConfig, DefaultsAreHashirus) {
  auto c = parse_config("{}", "c.yaml");
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->memory.threshold, 0.1);
  EXPECT_EQ(c->memory.top_k, 5);
  EXPECT_TRUE(c->memory.auto_retrieve);
  EXPECT_EQ(c->memory.embedding_model, "");
  EXPECT_TRUE(c->switches.memory);
}

TEST(MemoryConfig, ReadsEveryKeyAndResolvesPaths) {
  auto c = parse_config(R"(
memory:
  path: mem.db
  embedding_model: ollama:all-minilm
  threshold: 0.2
  top_k: 3
  auto_retrieve: false
  lexical_weight: 0
  ranking: effgen
  context_messages: 1
  exact_below: 100
  index_dir: idx
)",
                        "/etc/kaisha/c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->memory.path, "/etc/kaisha/mem.db");
  EXPECT_EQ(c->memory.index_dir, "/etc/kaisha/idx");
  EXPECT_EQ(c->memory.embedding_model, "ollama:all-minilm");
  EXPECT_DOUBLE_EQ(c->memory.threshold, 0.2);
  EXPECT_EQ(c->memory.top_k, 3);
  EXPECT_FALSE(c->memory.auto_retrieve);
  EXPECT_EQ(c->memory.ranking, "effgen");
  EXPECT_EQ(c->memory.exact_below, 100);
}

TEST(MemoryConfig, MistakesNameFileLineAndKey) {
  struct Case {
    const char* yaml;
    const char* want;
  };
  for (const Case& k :
       {Case{"memory:\n  top_k: 0\n", "c.yaml:2"}, Case{"memory:\n  threshold: 2\n", "memory.threshold"},
        Case{"memory:\n  ranking: best\n", "expected one of similarity, effgen"},
        Case{"memory:\n  embedding_model: all-minilm\n", "provider:model"},
        Case{"memory:\n  treshold: 0.1\n", "did you mean 'threshold'"},
        Case{"memory:\n  lexical_weight: 1.5\n", "memory.lexical_weight"}}) {
    auto c = parse_config(k.yaml, "c.yaml");
    ASSERT_FALSE(c.ok()) << k.yaml;
    EXPECT_NE(c.error().message.find(k.want), std::string::npos) << c.error().message;
  }
}

TEST(MemoryConfig, ShortTermAndErrorReflectionDefaultsAndKeys) {
  auto d = parse_config("{}", "c.yaml");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->memory.error_reflection);
  EXPECT_TRUE(d->memory.short_term.enabled);
  EXPECT_DOUBLE_EQ(d->memory.short_term.threshold, 0.85);  // effgen.md §23 item 35
  EXPECT_EQ(d->memory.short_term.keep_recent, 10);
  auto c = parse_config(R"(
memory:
  error_reflection: false
  short_term: { enabled: false, context_tokens: 2000, threshold: 0.5, keep_recent: 4 }
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->memory.error_reflection);
  EXPECT_FALSE(c->memory.short_term.enabled);
  EXPECT_EQ(c->memory.short_term.context_tokens, 2000);
  EXPECT_DOUBLE_EQ(c->memory.short_term.threshold, 0.5);
  EXPECT_EQ(c->memory.short_term.keep_recent, 4);
  for (const char* bad : {"memory:\n  short_term: { threshold: 1.5 }\n", "memory:\n  short_term: { keep_recent: 0 }\n",
                          "memory:\n  short_term: { context_tokns: 10 }\n", "memory:\n  short_term: 3\n"}) {
    auto r = parse_config(bad, "c.yaml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("memory.short_term"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace kaisha::config
