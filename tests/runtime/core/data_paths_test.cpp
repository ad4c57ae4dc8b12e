// Where data files are read from (runtime/core/data_paths.hpp): a root the
// program sets wins over the search, $KAISHA_DATA_DIR over both, and a
// build tree without either reads the source tree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runtime/core/data_paths.hpp"

namespace kaisha {
namespace {

class DataPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("KAISHA_DATA_DIR")) saved_ = v;
    unsetenv("KAISHA_DATA_DIR");
  }
  void TearDown() override {
    set_data_root("");
    if (saved_.empty())
      unsetenv("KAISHA_DATA_DIR");
    else
      setenv("KAISHA_DATA_DIR", saved_.c_str(), 1);
  }
  std::string saved_;
};

TEST_F(DataPathsTest, ABuildTreeReadsTheSourceTree) {
  EXPECT_EQ(data_root(), KAISHA_SOURCE_DIR);
  EXPECT_EQ(data_file("prompts/ceo_system.md"), std::string(KAISHA_SOURCE_DIR) + "/prompts/ceo_system.md");
}

TEST_F(DataPathsTest, TheProgramsRootWinsOverTheSearchAndTheEnvironmentOverBoth) {
  set_data_root("/opt/kaisha-data");
  EXPECT_EQ(data_root(), "/opt/kaisha-data");
  EXPECT_EQ(data_file("data/cost_table.yaml"), "/opt/kaisha-data/data/cost_table.yaml");
  setenv("KAISHA_DATA_DIR", "/srv/kaisha", 1);
  EXPECT_EQ(data_root(), "/srv/kaisha");
  unsetenv("KAISHA_DATA_DIR");
  set_data_root("");
  EXPECT_EQ(data_root(), KAISHA_SOURCE_DIR);
}

}  // namespace
}  // namespace kaisha
