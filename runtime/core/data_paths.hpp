// Where kaisha finds its data files (prompts, cost table, tool specs,
// scenarios), the first of: $KAISHA_DATA_DIR; the root a program set with
// set_data_root(); <exe>/../share/kaisha (an installed `kaisha`, or a program
// installed beside it); the source tree the library was built from, while it
// has prompts/ (a build tree); the data directory of the install prefix it
// was configured with (<prefix>/share/kaisha). Files are addressed relative
// to that root, e.g. data_file("prompts/ceo_system.md").
#pragma once

#include <string>

#include "runtime/core/result.hpp"

namespace kaisha {

std::string data_root();
// Makes `root` the data root of this process ("" = the search above). Call it
// before starting a company; not thread-safe against running ones.
void set_data_root(std::string root);
std::string data_file(const std::string& relative);

// Reads a whole file; the error names the path.
Result<std::string> read_text_file(const std::string& path);

}  // namespace kaisha
