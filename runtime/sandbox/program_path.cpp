#include "runtime/sandbox/program_path.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace kaisha::sandbox {

Result<std::string> program_path(const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) return Error{"program", "no program named"};
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    const fs::path p = fs::absolute(name, ec);
    if (ec || access(p.c_str(), X_OK) != 0) return Error{"program", "'" + name + "' is not an executable file"};
    return p.string();
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) dir = ".";
    const fs::path p = fs::absolute(fs::path(dir) / name);
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p.string();
  }
  return Error{"program", "'" + name + "' was not found in $PATH (" + std::string(path ? path : "") + ")"};
}

}  // namespace kaisha::sandbox
