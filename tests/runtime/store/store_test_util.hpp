// A fresh temporary directory per test, removed afterwards.
#pragma once

#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace kaisha::store::testing {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ =
        std::filesystem::temp_directory_path() / ("kaisha-store-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace kaisha::store::testing
