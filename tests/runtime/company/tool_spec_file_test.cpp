#include "runtime/company/tool_spec_file.hpp"

#include <gtest/gtest.h>

namespace kaisha::company {
namespace {

// What data/tools/*.json declares safe to run twice; everything else is not.
TEST(RepeatableTool, ReadingAndWritingAGivenContentAreRepeatableCodeAndMemoriesAreNot) {
  for (const char* t :
       {"file_read", "file_write", "dir_list", "dir_create", "ReadFile", "WriteFile", "GetWebsite", "Calculator"})
    EXPECT_TRUE(repeatable_tool(t)) << t;
  for (const char* t : {"execute_code", "execute_shell", "pip_install", "file_move", "PythonSandboxTool",
                        "MemoryManager", "ToolCreator", "a_created_tool", "mcp__server__tool", ""})
    EXPECT_FALSE(repeatable_tool(t)) << t;
}

// The flag does not change what a spec loads as.
TEST(RepeatableTool, SpecsLoadWithTheFlagPresent) {
  auto specs = load_tool_specs(KAISHA_SOURCE_DIR "/data/tools/pyramid_tools.json");
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  ASSERT_FALSE(specs->empty());
  EXPECT_EQ(specs->front().name, "file_read");
  EXPECT_TRUE(specs->front().parameters.is_object());
}

}  // namespace
}  // namespace kaisha::company
