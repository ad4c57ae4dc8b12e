#include "runtime/memory/hashed_ngram_embedder.hpp"

#include <cctype>
#include <cstdint>
#include <string_view>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/fnv1a.hpp"

namespace kaisha::memory {
namespace {

// FNV-1a from 1469598103934665603, which is not FNV's offset basis (it is a
// digit short of it): kept, because the vectors of stored memories were made with it.
uint64_t fnv1a(std::string_view s, uint64_t seed) { return fnv1a_64(1469598103934665603ull ^ seed, s); }

// Words: runs of letters, digits and UTF-8 bytes, lower-cased (ASCII).
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c >= 0x80) {
      w += ascii_lower(static_cast<char>(c));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

}  // namespace

HashedNgramEmbedder::HashedNgramEmbedder(int dims) : dims_(dims > 0 ? dims : 384) {}

std::string HashedNgramEmbedder::model_id() const { return "builtin:hashed-ngram-" + std::to_string(dims_); }

Vector HashedNgramEmbedder::embed_one(const std::string& text) const {
  Vector v(static_cast<size_t>(dims_), 0.0f);
  auto add = [&](std::string_view feature, uint64_t seed, float weight) {
    const uint64_t h = fnv1a(feature, seed);
    const size_t bucket = static_cast<size_t>(h % static_cast<uint64_t>(dims_));
    v[bucket] += (h >> 63) ? -weight : weight;
  };
  for (const std::string& w : words_of(text)) {
    add(w, 0x77, 1.0f);  // the whole word
    const std::string padded = " " + w + " ";
    for (size_t i = 0; i + 3 <= padded.size(); ++i) add(std::string_view(padded).substr(i, 3), 0x33, 1.0f);
  }
  normalize(v);
  return v;
}

void HashedNgramEmbedder::embed(std::vector<std::string> texts, EmbedDone done) {
  std::vector<Vector> out;
  out.reserve(texts.size());
  for (const auto& t : texts) out.push_back(embed_one(t));
  done(std::move(out));
}

}  // namespace kaisha::memory
