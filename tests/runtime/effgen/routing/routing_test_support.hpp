// Shared fixtures for the routing tests: the shipped keyword tables, read
// from the source tree so the tests never depend on the environment.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "runtime/effgen/routing/complexity_analyzer.hpp"
#include "runtime/effgen/routing/keyword_tables.hpp"

namespace kaisha::routing::testing {

inline std::string shipped_keywords_path() {
  return std::string(KAISHA_SOURCE_DIR) + "/data/effgen/complexity_keywords.yaml";
}

inline const KeywordTables& shipped_tables() {
  static const KeywordTables tables = [] {
    auto t = load_keyword_tables(shipped_keywords_path());
    if (!t) {
      ADD_FAILURE() << t.error().message;
      return KeywordTables{};
    }
    return std::move(*t);
  }();
  return tables;
}

inline ComplexityAnalyzer analyzer_with(const AnalyzerOptions& options = {}) {
  auto a = ComplexityAnalyzer::create(shipped_tables(), options);
  if (!a) {
    ADD_FAILURE() << a.error().message;
    std::abort();
  }
  return *a;
}

inline ComplexityAnalyzer analyzer_with_profile(const std::string& profile) {
  AnalyzerOptions o;
  o.requirement_profile = profile;
  return analyzer_with(o);
}

// `n` words that hit no keyword table and no requirement token.
inline std::string neutral_words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " lorem" : "lorem");
  return s;
}

}  // namespace kaisha::routing::testing
