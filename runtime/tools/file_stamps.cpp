#include "runtime/tools/file_stamps.hpp"

#include <sys/stat.h>

#include "runtime/core/confined_fs.hpp"

namespace kaisha::tools {

namespace {

bool hidden_path(const std::string& shown) { return shown.rfind('.', 0) == 0 || shown.find("/.") != std::string::npos; }

}  // namespace

Result<FileStamps> stamp_files(const std::string& dir, size_t max_files) {
  auto root = open_root_dir(dir);
  if (!root) return root.error();
  FileStamps out;
  Status walked =
      walk_beneath(root->get(), [&](int, const std::string&, const struct stat& st, const std::string& shown) {
        if (out.size() < max_files && S_ISREG(st.st_mode) && !hidden_path(shown))
          out[shown] = {static_cast<int64_t>(st.st_size),
                        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
        return Status::Ok();
      });
  // A tree too deep to walk whole still gives the stamps it could take.
  if (!walked.ok() && walked.error().code != "too_deep") return walked.error();
  return out;
}

std::vector<std::string> changed_files(const FileStamps& before, const FileStamps& after) {
  std::vector<std::string> out;
  for (const auto& [path, stamp] : after) {
    auto b = before.find(path);
    if (b == before.end() || b->second != stamp) out.push_back(path);
  }
  return out;
}

}  // namespace kaisha::tools
