// Where kaisha finds its data files (prompts, cost table, tool specs,
// scenarios): $KAISHA_DATA_DIR if set, else the source tree the binary was
// built from, else <exe>/../share/kaisha. Files are addressed relative to that
// root, e.g. data_file("prompts/ceo_system.md").
#pragma once

#include <string>

#include "runtime/core/result.hpp"

namespace kaisha {

std::string data_root();
std::string data_file(const std::string& relative);

// Reads a whole file; the error names the path.
Result<std::string> read_text_file(const std::string& path);

}  // namespace kaisha
