#include "runtime/memory/memory_bank.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "memory_test_util.hpp"
#include "runtime/memory/hashed_ngram_embedder.hpp"

namespace kaisha::memory {
namespace {

// Counts the texts it embeds, to see what is cached and what is not.
class CountingEmbedder : public Embedder {
 public:
  std::string model_id() const override { return inner.model_id(); }
  void embed(std::vector<std::string> texts, EmbedDone done) override {
    embedded += texts.size();
    inner.embed(std::move(texts), std::move(done));
  }
  HashedNgramEmbedder inner{128};
  size_t embedded = 0;
};

// Fails every call, like an embedding provider that is down.
class FailingEmbedder : public Embedder {
 public:
  std::string model_id() const override { return "ollama:all-minilm"; }
  void embed(std::vector<std::string>, EmbedDone done) override {
    done(Error{"connect", "ollama:all-minilm: refused"});
  }
};

MemoryEntry entry(const std::string& id, const std::string& text) {
  MemoryEntry e;
  e.id = id;
  e.content = text;
  return e;
}

std::unique_ptr<MemoryBank> open_bank(const std::string& db, const std::string& index_dir,
                                      std::shared_ptr<Embedder> emb) {
  auto st = MemoryStore::open(db);
  EXPECT_TRUE(st.ok());
  MemoryBankOptions o;
  o.index_dir = index_dir;
  o.stopwords = {"the", "is", "a", "me", "i", "am", "give"};
  auto bank = MemoryBank::open(std::move(st).value(), std::move(emb), o);
  EXPECT_TRUE(bank.ok()) << bank.error().message;
  return bank.ok() ? std::move(bank).value() : nullptr;
}

TEST(MemoryBank, RetrievesAboveTheThresholdCappedAtTopK) {
  auto bank = open_bank(":memory:", "", std::make_shared<HashedNgramEmbedder>());
  ASSERT_TRUE(bank->add(entry("vegetarian", "The user is vegetarian.")).ok());
  ASSERT_TRUE(bank->add(entry("deadline", "The report deadline is Friday.")).ok());
  for (int i = 0; i < 8; ++i)
    ASSERT_TRUE(bank->add(entry("v" + std::to_string(i), "vegetarian dish " + std::to_string(i))).ok());
  RetrievalOptions o;
  o.lexical_weight = 0;  // HASHIRU literal: cosine only
  auto hits = bank->retrieve("Is the user a vegetarian?", o);
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_EQ(hits->size(), 5u);  // top-k
  EXPECT_EQ(hits->front().entry.id, "vegetarian");
  for (const auto& h : *hits) {
    EXPECT_GE(h.similarity, o.threshold);
    EXPECT_NE(h.entry.id, "deadline");
  }
  o.threshold = 0.99;
  EXPECT_TRUE(bank->retrieve("Is the user a vegetarian?", o)->empty());
  // Retrievals are counted.
  EXPECT_GE((*bank->store().find("vegetarian"))->access_count, 1);
}

TEST(MemoryBank, LexicalHitsJoinTheRankingWithoutStopwordNoise) {
  auto bank = open_bank(":memory:", "", std::make_shared<HashedNgramEmbedder>());
  ASSERT_TRUE(bank->add(entry("pasta", "Carbonara uses guanciale.")).ok());
  ASSERT_TRUE(bank->add(entry("other", "The meeting is at noon.")).ok());
  RetrievalOptions o;
  o.threshold = 0.5;  // too high for the cosine alone
  o.lexical_weight = 0.6;
  auto hits = bank->retrieve("guanciale", o);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ(hits->front().entry.id, "pasta");
  EXPECT_DOUBLE_EQ(hits->front().lexical, 1.0);
  // "the"/"is" are stopwords: no lexical score for the meeting.
  auto stop = bank->retrieve("the is", o);
  ASSERT_TRUE(stop.ok());
  for (const auto& h : *stop) EXPECT_EQ(h.lexical, 0.0) << h.entry.id;
}

TEST(MemoryBank, EffgenRankingPrefersImportantEntries) {
  auto bank = open_bank(":memory:", "", std::make_shared<HashedNgramEmbedder>());
  MemoryEntry low = entry("low", "vegetarian note");
  low.importance = Importance::low;
  low.type = MemoryType::conversation;
  MemoryEntry high = entry("high", "vegetarian notes");
  high.importance = Importance::critical;
  ASSERT_TRUE(bank->add(low).ok());
  ASSERT_TRUE(bank->add(high).ok());
  RetrievalOptions o;
  o.lexical_weight = 0;
  o.effgen_ranking = true;
  auto hits = bank->retrieve("vegetarian note", o);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ(hits->front().entry.id, "high");  // despite the lower similarity
  EXPECT_GT(hits->front().similarity, 0);
  EXPECT_LT(hits->front().similarity, (*hits)[1].similarity);
}

TEST(MemoryBank, RemoveByKeyOrExactText) {
  auto bank = open_bank(":memory:", "", std::make_shared<HashedNgramEmbedder>());
  ASSERT_TRUE(bank->add(entry("vegetarian", "The user is vegetarian.")).ok());
  auto r = bank->remove("The user is vegetarian.");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->id, "vegetarian");
  EXPECT_EQ(bank->index().size(), 0u);
  EXPECT_FALSE(bank->remove("vegetarian")->has_value());
  RetrievalOptions o;
  EXPECT_TRUE(bank->retrieve("vegetarian", o)->empty());
}

TEST(MemoryBank, EmbeddingsAreCachedAndTheIndexIsPersistedOrRebuilt) {
  testing::TempDir dir;
  const std::string db = dir.file("m.db"), idx = dir.file("m.index");
  auto emb = std::make_shared<CountingEmbedder>();
  {
    auto bank = open_bank(db, idx, emb);
    for (int i = 0; i < 20; ++i)
      ASSERT_TRUE(bank->add(entry("k" + std::to_string(i), "memory number " + std::to_string(i))).ok());
    EXPECT_FALSE(bank->index_was_loaded());
  }  // saves the index
  EXPECT_EQ(emb->embedded, 20u);
  {
    auto bank = open_bank(db, idx, emb);
    EXPECT_TRUE(bank->index_was_loaded());
    EXPECT_EQ(bank->index().size(), 20u);
    EXPECT_EQ(emb->embedded, 20u);  // nothing embedded again
  }
  std::filesystem::remove_all(idx);
  {
    auto bank = open_bank(db, idx, emb);
    EXPECT_FALSE(bank->index_was_loaded());  // rebuilt from the cached vectors
    EXPECT_EQ(bank->index().size(), 20u);
    EXPECT_EQ(emb->embedded, 20u);
    RetrievalOptions o;
    o.lexical_weight = 0;
    auto hits = bank->retrieve("memory number 7", o);
    ASSERT_TRUE(hits.ok() && !hits->empty());
    EXPECT_EQ(hits->front().entry.id, "k7");
  }
  // A change made without saving the index (a crash) makes it stale.
  {
    auto st = MemoryStore::open(db);
    MemoryEntry e = entry("late", "added behind the index's back");
    ASSERT_TRUE((*st)->add(e).ok());
  }
  {
    auto bank = open_bank(db, idx, emb);
    EXPECT_FALSE(bank->index_was_loaded());
    EXPECT_EQ(bank->index().size(), 21u);  // rebuilt, and the new entry embedded
    EXPECT_EQ(emb->embedded, 22u);         // 20 entries, the query above, the new entry
  }
}

TEST(MemoryBank, ChangingTheEmbeddingModelReEmbedsEverything) {
  testing::TempDir dir;
  const std::string db = dir.file("m.db");
  {
    auto bank = open_bank(db, "", std::make_shared<HashedNgramEmbedder>(64));
    ASSERT_TRUE(bank->add(entry("a", "alpha beta")).ok());
  }
  auto bank = open_bank(db, "", std::make_shared<HashedNgramEmbedder>(32));
  EXPECT_EQ(bank->index().dims(), 32);
  EXPECT_EQ(*bank->store().vector_count("builtin:hashed-ngram-32"), 1);
}

TEST(MemoryBank, AFailingEmbedderKeepsTheEntryAndSaysWhy) {
  auto st = MemoryStore::open(":memory:");
  auto bank = MemoryBank::open(std::move(st).value(), std::make_shared<FailingEmbedder>(), {});
  ASSERT_TRUE(bank.ok());  // nothing to embed yet
  auto added = (*bank)->add(entry("k", "text"));
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message.find("ollama:all-minilm"), std::string::npos);
  EXPECT_TRUE((*bank)->store().find("k")->has_value());
  auto r = (*bank)->retrieve("text", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "connect");
}

}  // namespace
}  // namespace kaisha::memory
