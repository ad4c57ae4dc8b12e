// ToolIndex: what validating each Python tool file found (its entry class
// and spec), keyed by file name and the hash of the file's content, saved as
// JSON next to the tools (".kaisha-index.json"). A source starting over
// the same directory takes unchanged files from the index instead of loading
// each one in the sandbox again; a file whose content changed, or that the
// index does not know, is validated anew. The shipped tools come with their
// index (data/tools/default_tools), so starting kaisha costs no sandbox run.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "runtime/core/result.hpp"
#include "runtime/tools/tool_validator.hpp"

namespace kaisha::tools {

inline const char* kToolIndexFile = ".kaisha-index.json";

// FNV-1a, 64 bits, as 16 hex digits: stable across builds and platforms.
std::string content_hash(const std::string& text);

class ToolIndex {
 public:
  // A missing or unreadable index is an empty one (everything is validated).
  static ToolIndex load(const std::string& dir);
  Status save(const std::string& dir) const;

  // The entry for `file` if its recorded hash is `hash`.
  std::optional<ValidatedTool> find(const std::string& file, const std::string& hash) const;
  void put(const std::string& file, const std::string& hash, const ValidatedTool& tool);
  void erase(const std::string& file) { entries_.erase(file); }

 private:
  struct Entry {
    std::string hash;
    ValidatedTool tool;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace kaisha::tools
