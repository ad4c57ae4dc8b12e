#include "runtime/core/data_paths.hpp"

#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef KAISHA_DEFAULT_DATA_DIR
#define KAISHA_DEFAULT_DATA_DIR ""
#endif

namespace kaisha {

namespace fs = std::filesystem;

std::string data_root() {
  if (const char* env = std::getenv("KAISHA_DATA_DIR"); env && *env) return env;
  std::string built = KAISHA_DEFAULT_DATA_DIR;
  if (!built.empty() && fs::exists(fs::path(built) / "prompts")) return built;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path share = exe.parent_path().parent_path() / "share" / "kaisha";
    if (fs::exists(share)) return share.string();
  }
  return built.empty() ? "." : built;
}

std::string data_file(const std::string& relative) { return (fs::path(data_root()) / relative).string(); }

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"io", "cannot read " + path + ": " + std::strerror(errno)};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace kaisha
