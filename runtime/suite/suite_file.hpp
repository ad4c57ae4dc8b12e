// Reading a suite from a file: its size is checked before it is read, then
// parse_suite names the file in every error.
#pragma once

#include <string>
#include <vector>

#include "runtime/suite/suite_parse.hpp"

namespace kaisha::suite {

// The tasks of the JSONL file at `path`. Errors: "io" when it cannot be
// read (the message names the path), "suite" as parse_suite (over
// max_file_bytes before a byte is read).
Result<std::vector<SuiteItem>> load_suite_file(const std::string& path, const SuiteLimits& limits = {});

}  // namespace kaisha::suite
