// Helpers shared by the tools tests: a private temp directory per test.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace kaisha::tools::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/kaisha-tools-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
    std::filesystem::permissions(path_, std::filesystem::perms(0755));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& rel) const { return path_ + "/" + rel; }
  std::string write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = file(rel);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(file(rel), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  std::string path_;
};

}  // namespace kaisha::tools::testing
