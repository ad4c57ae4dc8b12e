// guard_yaml: a loader's missed check becomes a config error, not an abort.
#include <gtest/gtest.h>

#include "runtime/config/yaml/yaml_reader.hpp"

namespace kaisha::config {
namespace {

TEST(YamlGuard, AThrowingReadBecomesAnErrorNamingTheFile) {
  auto doc = parse_yaml("a: 1\n", "library.yaml");
  ASSERT_TRUE(doc.ok());
  Result<int> r = guard_yaml("library.yaml", [&]() -> Result<int> {
    return (*doc)["missing"]["deeper"].as<int>();  // yaml-cpp throws here
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "config");
  EXPECT_EQ(r.error().message.rfind("library.yaml: cannot read this file: ", 0), 0u) << r.error().message;
}

TEST(YamlGuard, AReadThatDoesNotThrowIsPassedThrough) {
  auto doc = parse_yaml("a: 7\n", "c.yaml");
  ASSERT_TRUE(doc.ok());
  Result<int> r = guard_yaml("c.yaml", [&]() -> Result<int> { return (*doc)["a"].as<int>(); });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  Status failed = guard_yaml("c.yaml", [] { return Status(Error{"config", "c.yaml:1: a: too small"}); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "c.yaml:1: a: too small");
}

}  // namespace
}  // namespace kaisha::config
