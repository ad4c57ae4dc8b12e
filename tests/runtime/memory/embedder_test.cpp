#include <gtest/gtest.h>

#include <cmath>

#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/memory/provider_embedder.hpp"
#include "runtime/mockllm/mock_embedding.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"

namespace kaisha::memory {
namespace {

double norm(const Vector& v) { return std::sqrt(dot(v, v)); }

TEST(HashedNgramEmbedder, DeterministicUnitVectorsOfTheConfiguredSize) {
  HashedNgramEmbedder e(64);
  EXPECT_EQ(e.model_id(), "builtin:hashed-ngram-64");
  const Vector a = e.embed_one("The user is vegetarian.");
  EXPECT_EQ(a.size(), 64u);
  EXPECT_NEAR(norm(a), 1.0, 1e-5);
  EXPECT_EQ(a, HashedNgramEmbedder(64).embed_one("The user is vegetarian."));
  const Vector empty = e.embed_one("...");
  EXPECT_EQ(empty.size(), 64u);
  EXPECT_EQ(norm(empty), 0.0);
}

TEST(HashedNgramEmbedder, SharedWordsAndStemsScoreHigherThanUnrelatedText) {
  HashedNgramEmbedder e;
  const Vector mem = e.embed_one("The user is vegetarian.");
  const double stem = dot(mem, e.embed_one("Recipes for vegetarians"));
  const double unrelated = dot(mem, e.embed_one("Quarterly revenue grew by 4%"));
  EXPECT_GT(stem, 0.3);
  EXPECT_LT(std::abs(unrelated), 0.15);
  EXPECT_GT(stem, unrelated + 0.2);
  // Its quality cost, written down as a test: meaning without shared
  // spelling is not found.
  EXPECT_LT(dot(mem, e.embed_one("I don't eat meat")), 0.1);
}

TEST(HashedNgramEmbedder, EmbedCallsBackBeforeReturning) {
  HashedNgramEmbedder e(32);
  bool called = false;
  e.embed({"a", "b"}, [&](Result<std::vector<Vector>> r) {
    called = true;
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size(), 2u);
  });
  EXPECT_TRUE(called);
}

class ProviderEmbedderMock : public ::testing::Test {
 protected:
  void SetUp() override {
    auto script = mockllm::parse_mock_script("rules: []\n", "embedder_test");
    ASSERT_TRUE(script.ok()) << script.error().message;
    server_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = server_->start("127.0.0.1", 0);
    ASSERT_TRUE(port.ok());
    port_ = *port;
  }
  std::shared_ptr<provider::LlmClient> client(int port, const std::string& dialect) {
    config::Config cfg;
    config::ProviderConfig p;
    p.name = dialect;
    p.dialect = dialect;
    p.base_url = "http://127.0.0.1:" + std::to_string(port) + (dialect == "openai" ? "/v1" : "");
    p.timeout_ms = 5000;
    cfg.providers[dialect] = p;
    cfg.retry.max_attempts = 1;
    return std::make_shared<provider::LlmClient>(cfg);
  }
  std::unique_ptr<mockllm::MockLlmServer> server_;
  int port_ = 0;
};

// Ollama /api/embed (all-minilm) and OpenAI /v1/embeddings over real HTTP.
TEST_F(ProviderEmbedderMock, EmbedsThroughOllamaAndOpenAiEndpoints) {
  for (const std::string dialect : {"ollama", "openai"}) {
    ProviderEmbedder e(client(port_, dialect), dialect + ":all-minilm");
    EXPECT_EQ(e.model_id(), dialect + ":all-minilm");
    auto r = embed_blocking(e, {"The user is vegetarian.", "bacon"});
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[0].size(), static_cast<size_t>(mockllm::kMockEmbeddingDims));
    EXPECT_NEAR(norm((*r)[0]), 1.0, 1e-5);
    const auto want = mockllm::mock_embedding("The user is vegetarian.");
    EXPECT_NEAR(dot((*r)[0], Vector(want.begin(), want.end())), 1.0, 1e-5);
  }
  bool saw_embed = false;
  for (const auto& entry : server_->request_log())
    if (entry.value("kind", "") == "embed" && entry.value("path", "") == "/api/embed") saw_embed = true;
  EXPECT_TRUE(saw_embed);
}

TEST_F(ProviderEmbedderMock, AnUnreachableProviderIsAnErrorNamingTheModel) {
  server_->stop();
  ProviderEmbedder e(client(port_, "ollama"), "ollama:all-minilm");
  auto r = embed_blocking(e, {"x"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ollama:all-minilm"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kaisha::memory
