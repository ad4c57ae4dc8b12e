#include "runtime/suite/suite_file.hpp"

#include <filesystem>
#include <system_error>

#include "runtime/core/data_paths.hpp"

namespace kaisha::suite {

Result<std::vector<SuiteItem>> load_suite_file(const std::string& path, const SuiteLimits& limits) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{"io", path + ": is a directory, not a suite file"};
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{"io", "cannot read suite " + path + ": " + ec.message()};
  if (size > limits.max_file_bytes)
    return Error{"suite", path + ": " + std::to_string(size) + " bytes, more than the " +
                              std::to_string(limits.max_file_bytes) + " a suite may have"};
  Result<std::string> text = read_text_file(path);
  if (!text) return Error{"io", text.error().message};
  return parse_suite(text.value(), path, limits);
}

}  // namespace kaisha::suite
