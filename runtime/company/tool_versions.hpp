// ToolVersions: every version of one tool's code, for the tools whose code
// changes while kaisha runs — a created tool rewritten with ToolCreator, a
// HiVA agent's tool rewritten by a semantic update. Registering new code
// makes it the next version and keeps the ones before it, each with the hash
// of its code (the key HiVA's per-version metrics use), so what ran at any
// point can be told and restored.
//
// Promises: versions count up from the first one registered and never
// repeat; registering the code of the latest version registers nothing;
// at most `max_kept` versions are kept, the oldest forgotten first (the
// numbering goes on). Not thread-safe: its owner guards it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::company {

inline constexpr std::size_t kMaxKeptToolVersions = 16;

// The hash versions and metrics are keyed by: 16 hex digits, the same in
// every build (the tool index's content_hash).
std::string tool_code_hash(std::string_view code);

struct ToolVersion {
  int version = 0;
  std::string code_hash;
  std::string code;

  bool operator==(const ToolVersion&) const = default;
};

class ToolVersions {
 public:
  explicit ToolVersions(std::size_t max_kept = kMaxKeptToolVersions) : max_kept_(max_kept ? max_kept : 1) {}

  // Registers `code` as the tool's next version (`first_version` when none
  // was registered) and returns it; the latest version when it has the same code.
  const ToolVersion& add(std::string code, int first_version = 1);
  // Puts back a version read from disk: its number must be above the
  // latest's and its hash that of its code (else an Error saying which).
  Status restore(ToolVersion v);

  const ToolVersion* latest() const { return versions_.empty() ? nullptr : &versions_.back(); }
  const ToolVersion* find(int version) const;
  const std::vector<ToolVersion>& all() const { return versions_; }  // oldest first
  bool empty() const { return versions_.empty(); }

  // [{"version", "code_hash", "code"}, ...], oldest first; without "code"
  // when `with_code` is false.
  json to_json(bool with_code = true) const;
  // Reads to_json()'s form; errors name `path` and the entry ("tools.X[1].code_hash: ...").
  static Result<ToolVersions> from_json(const json& j, const std::string& path,
                                        std::size_t max_kept = kMaxKeptToolVersions);

  bool operator==(const ToolVersions& o) const { return versions_ == o.versions_; }

 private:
  void bound();
  std::size_t max_kept_;
  std::vector<ToolVersion> versions_;
};

}  // namespace kaisha::company
