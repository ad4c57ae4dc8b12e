// A hand-computable embedder for the routing tests: each listed word is one
// axis (several words may share an axis); a text's vector has a 1 on the
// axis of every listed word it contains (by keywords_of), so the cosine of
// two texts is |shared axes| / sqrt(|axes of one| · |axes of the other|).
#pragma once

#include <map>
#include <string>

#include "runtime/hiva/routing/embedding.hpp"
#include "runtime/hiva/routing/keywords.hpp"

namespace kaisha::hiva::testing {

inline Embed axis_embedder(std::map<std::string, int> axes, int dims) {
  return [axes = std::move(axes), dims](const std::string& text) {
    Embedding v(static_cast<size_t>(dims), 0.0f);
    for (const std::string& word : keywords_of(text)) {
      const auto it = axes.find(word);
      if (it != axes.end()) v[static_cast<size_t>(it->second)] = 1.0f;
    }
    return v;
  };
}

}  // namespace kaisha::hiva::testing
