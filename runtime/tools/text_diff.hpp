// A line diff of two texts in the unified format (`-` old line, `+` new
// line, ` ` context), as `kaisha history TASK --diff` shows a commit. Texts
// too large to compare line by line (more than `max_cells` line pairs) are
// shown as all old lines removed and all new ones added.
#pragma once

#include <cstddef>
#include <string>

namespace kaisha::tools {

std::string line_diff(const std::string& before, const std::string& after, size_t context = 3,
                      size_t max_cells = 4000000);

// Whether `bytes` look like text (no NUL byte in the first 8 KiB).
bool looks_like_text(const std::string& bytes);

}  // namespace kaisha::tools
