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

#include <chrono>
#include <future>

#include "runtime/company/tool_source.hpp"

namespace kaisha::tools::testing {

// Calls a source's tool and waits for its answer (bounded, so a lost
// `done` fails the test instead of hanging it).
inline company::ToolResult call_sync(company::ToolSource& p, const std::string& name, const json& args,
                                     const std::string& session = "s1") {
  auto promise = std::make_shared<std::promise<company::ToolResult>>();
  auto future = promise->get_future();
  p.call(name, args, company::ToolCallContext{session, "t1", "CEO", ""},
         [promise](company::ToolResult r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(60)) != std::future_status::ready)
    return company::ToolResult::error("test: no answer within 60 s");
  return future.get();
}

inline bool has_tool(const company::ToolSource& p, const std::string& name) {
  for (const auto& s : p.specs())
    if (s.name == name) return true;
  return false;
}

}  // namespace kaisha::tools::testing
