// The file tools of the CEO (hashiru.md §3.3): ListFiles, ReadFile and
// WriteFile, confined to a FileView (the task workspace plus read-only
// mounts). Blocking file I/O: callers run them off actor threads.
//
// Results use the HASHIRU envelope. Limits are enforced, never silently:
// a listing or a read beyond its limit returns the first part and says so in
// the message; a write beyond its limit is refused.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/company/tool_result.hpp"
#include "runtime/tools/file_view.hpp"

namespace kaisha::tools {

struct FileLimits {
  int64_t max_read_bytes = 1 << 20;
  int64_t max_write_bytes = 1 << 20;
  int64_t max_list_entries = 1000;
};

// ListFiles {"directory"}: sorted names, directories with a trailing '/';
// hidden entries (names starting with '.') are left out, as ls does.
company::ToolResult list_files(const FileView& view, const std::string& directory, const FileLimits& limits);
// ReadFile {"file_path"}: the file's text (UTF-8 only).
company::ToolResult read_file(const FileView& view, const std::string& file_path, const FileLimits& limits);
// WriteFile {"file_path", "content"}: creates or replaces a file (and its
// missing parent directories) in the workspace.
company::ToolResult write_file(const FileView& view, const std::string& file_path, const std::string& content,
                               const FileLimits& limits);

}  // namespace kaisha::tools
