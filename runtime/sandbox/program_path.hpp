// The absolute path run_process needs for a program a user named in a config
// file or on the command line: a name with a slash is taken as it is (made
// absolute against the working directory); a bare name is looked up in $PATH
// as a shell would. The error says which name was not found and where it was
// looked for.
#pragma once

#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::sandbox {

Result<std::string> program_path(const std::string& name);

}  // namespace kaisha::sandbox
