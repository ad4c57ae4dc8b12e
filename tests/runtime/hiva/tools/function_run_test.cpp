// One sandboxed run of a tool_function: each way a run can end comes back as
// its kind, and only the kinds that may pass on a second run are retryable.
#include "runtime/hiva/tools/function_run.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::hiva {
namespace function_run_test {

class HivaFunctionRun : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KAISHA_DATA_DIR", KAISHA_SOURCE_DIR, 1);
    Status s = sandbox::sandbox_available();
    if (!s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }
  static FunctionRun run(const std::string& code, const std::string& input = "", size_t max_result_bytes = 4096) {
    FunctionRunRequest req;
    req.code = code;
    req.input = input;
    req.max_result_bytes = max_result_bytes;
    req.limits.wall_timeout_ms = 20000;
    req.limits.cpu_seconds = 22;
    return run_tool_function(req);
  }
};

TEST(HivaFunctionRunKinds, OnlyFailuresThatMayPassAgainAreRetryable) {
  EXPECT_TRUE(retryable(RunKind::timeout));
  EXPECT_TRUE(retryable(RunKind::limit));
  EXPECT_TRUE(retryable(RunKind::crash));
  EXPECT_FALSE(retryable(RunKind::ok));
  EXPECT_FALSE(retryable(RunKind::tool_error));
  EXPECT_FALSE(retryable(RunKind::protocol));
  EXPECT_FALSE(retryable(RunKind::sandbox));
  EXPECT_STREQ(run_kind_name(RunKind::tool_error), "tool_error");
  EXPECT_EQ(result_text(json("日本")), "日本");
  EXPECT_EQ(result_text(json{{"a", 1}}), "{\"a\":1}");
}

TEST_F(HivaFunctionRun, AJsonValueStaysJsonAndAnObjectBecomesItsStr) {
  FunctionRun r =
      run("def tool_function(input_data, **kwargs):\n    return {'n': len(input_data), 'ok': True}\n", "abc");
  ASSERT_EQ(r.kind, RunKind::ok) << r.error;
  EXPECT_EQ(r.result, (json{{"n", 3}, {"ok", true}}));
  EXPECT_EQ(r.signature, "(input_data, **kwargs)");

  r =
      run("class Thing:\n    def __str__(self):\n        return 'a thing'\n"
          "def tool_function(input_data):\n    return Thing()\n");
  ASSERT_EQ(r.kind, RunKind::ok) << r.error;
  EXPECT_EQ(r.result, json("a thing"));
}

TEST_F(HivaFunctionRun, ALongResultIsCutAtACodePointBoundary) {
  // 10 bytes cannot hold four 3-byte characters: the cut falls back to 9.
  FunctionRun r = run("def tool_function(input_data):\n    return 'あいうえお'\n", "", 10);
  ASSERT_EQ(r.kind, RunKind::ok) << r.error;
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.result, json("あいう"));

  // A JSON value over the limit becomes its cut text.
  r = run("def tool_function(input_data):\n    return ['😀' * 10]\n", "", 11);
  ASSERT_EQ(r.kind, RunKind::ok) << r.error;
  EXPECT_TRUE(r.truncated);
  ASSERT_TRUE(r.result.is_string());
  EXPECT_EQ(r.result, json("[\"😀😀"));  // 2 + 4 + 4 bytes; the next emoji does not fit
  EXPECT_TRUE(utf8::valid(r.result.get<std::string>()));
}

TEST_F(HivaFunctionRun, ADeathBySignalIsACrash) {
  FunctionRun r = run("import os, signal\ndef tool_function(input_data):\n    os.kill(os.getpid(), signal.SIGKILL)\n");
  EXPECT_EQ(r.kind, RunKind::crash) << r.error;
  EXPECT_NE(r.error.find("signal 9"), std::string::npos) << r.error;
}

TEST_F(HivaFunctionRun, ValidateModeDoesNotCallTheFunction) {
  FunctionRunRequest req;
  req.mode = RunMode::validate;
  req.code = "def tool_function(input_data):\n    raise RuntimeError('called')\n";
  req.limits.wall_timeout_ms = 20000;
  FunctionRun r = run_tool_function(req);
  EXPECT_EQ(r.kind, RunKind::ok) << r.error;
  EXPECT_EQ(r.signature, "(input_data)");
  EXPECT_TRUE(r.result.is_null());
}

}  // namespace function_run_test
}  // namespace kaisha::hiva
