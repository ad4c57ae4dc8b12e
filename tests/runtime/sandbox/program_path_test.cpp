// program_path: a bare name through $PATH, a path as given, and clear errors.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "runtime/sandbox/program_path.hpp"

namespace kaisha::sandbox {
namespace {

TEST(ProgramPath, ABareNameIsFoundInPathAndAPathIsTakenAsGiven) {
  auto sh = program_path("sh");
  ASSERT_TRUE(sh.ok()) << sh.error().message;
  EXPECT_EQ(sh->front(), '/');
  EXPECT_EQ(*program_path("/bin/sh"), "/bin/sh");
}

TEST(ProgramPath, WhatCannotRunIsNamedInTheError) {
  auto none = program_path("kaisha-no-such-trainer-プログラム");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("'kaisha-no-such-trainer-プログラム' was not found in $PATH"), std::string::npos)
      << none.error().message;
  const std::string plain = testing::TempDir() + "kaisha-program-path-plain.txt";
  std::ofstream(plain) << "not a program\n";
  auto not_exec = program_path(plain);
  ASSERT_FALSE(not_exec.ok());
  EXPECT_EQ(not_exec.error().message, "'" + plain + "' is not an executable file");
  std::remove(plain.c_str());
  EXPECT_FALSE(program_path("").ok());
}

}  // namespace
}  // namespace kaisha::sandbox
