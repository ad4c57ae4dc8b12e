// SHA-256 of bytes, as 64 lowercase hex digits: the name of a file's content
// in a task's history, and of an exported training dataset.
#pragma once

#include <string>

namespace kaisha::tools {

std::string sha256_hex(const std::string& bytes);

}  // namespace kaisha::tools
