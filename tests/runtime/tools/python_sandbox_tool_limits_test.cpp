// PythonSandboxTool tells the model which whole-run limit stopped its code,
// with the limit's value and the mechanism that enforced it.
#include <gtest/gtest.h>

#include "runtime/sandbox/sandbox.hpp"
#include "runtime/tools/builtin_tools.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::call_sync;
using testing::TempDir;

TEST(PythonSandboxToolLimits, AForkBombIsReportedAsTheProcessLimit) {
  if (Status s = sandbox::sandbox_available(); !s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  TempDir root;
  BuiltinToolsOptions o;
  o.workspace_root = root.path();
  o.switches = std::make_shared<ToolSwitches>();
  o.code_limits.max_processes = 8;
  o.code_limits.wall_timeout_ms = 30000;
  auto tools = BuiltinTools::create(std::move(o));
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  auto r = call_sync(**tools, "PythonSandboxTool",
                     {{"code", "import os\nwhile True:\n  try:\n    os.fork()\n  except OSError:\n    pass\n"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("process limit exceeded"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("more than 8 processes"), std::string::npos) << r.message;
  EXPECT_EQ(r.output["limit"], "processes");
  EXPECT_EQ(r.output["limit_value"], 8);
  EXPECT_FALSE(r.output["enforcement"].get<std::string>().empty());
}

}  // namespace
}  // namespace kaisha::tools
