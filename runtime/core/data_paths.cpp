#include "runtime/core/data_paths.hpp"

#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#ifndef KAISHA_DEFAULT_DATA_DIR
#define KAISHA_DEFAULT_DATA_DIR ""
#endif
#ifndef KAISHA_INSTALL_DATA_DIR
#define KAISHA_INSTALL_DATA_DIR ""
#endif
#ifndef KAISHA_PACKAGE_DATA_DIR
#define KAISHA_PACKAGE_DATA_DIR ""
#endif

namespace kaisha {

namespace fs = std::filesystem;

namespace {
std::string& chosen_root() {
  static std::string root;
  return root;
}
}  // namespace

void set_data_root(std::string root) { chosen_root() = std::move(root); }

std::string data_root() {
  if (const char* env = std::getenv("KAISHA_DATA_DIR"); env && *env) return env;
  if (!chosen_root().empty()) return chosen_root();
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // Checked before the source tree so that an installed kaisha reads the
    // data installed with it, even on the machine it was built on.
    fs::path share = exe.parent_path().parent_path() / "share" / "kaisha";
    if (fs::exists(share / "prompts")) return share.string();
  }
  std::string built = KAISHA_DEFAULT_DATA_DIR;
  if (!built.empty() && fs::exists(fs::path(built) / "prompts")) return built;
  for (std::string installed : {KAISHA_INSTALL_DATA_DIR, KAISHA_PACKAGE_DATA_DIR})
    if (!installed.empty() && fs::exists(fs::path(installed) / "prompts")) return installed;
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
