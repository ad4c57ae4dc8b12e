// What a program run in a task's directory created or changed, by a stamp
// (size, modification time) of every visible file taken before and after the
// run: the pyramid's execute_code and execute_shell report those files, so
// that the task's file index (C_LM) shows what programs made, not only what
// file_write wrote. Hidden names (a component starting with '.') are left
// out, as everywhere the index looks. The walk never follows a symlink
// (runtime/core/confined_fs.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::tools {

// path (relative, '/'-separated) -> (size, modification time in ns).
using FileStamps = std::map<std::string, std::pair<int64_t, int64_t>>;

// The stamps of the regular files below `dir`; at most `max_files` (the
// rest are not stamped, so a huge tree costs a bounded walk's worth).
Result<FileStamps> stamp_files(const std::string& dir, size_t max_files = 20000);

// Files of `after` that `before` did not have or had with another stamp, by path.
std::vector<std::string> changed_files(const FileStamps& before, const FileStamps& after);

}  // namespace kaisha::tools
