// HivaToolSource end to end in a real sandbox (hiva.md §14 items 5, 15, 22):
// results, raised errors that are not retried, runaway tools killed at the
// timeout and retried with the failures in the metrics, broken replies,
// Unicode, validation, bad arguments, the embedder hook and stop().
#include "runtime/hiva/tools/hiva_tool_source.hpp"

#include <chrono>
#include <cstdlib>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::hiva {
namespace hiva_tool_source_test {

using company::ToolResult;

// Long enough for a sandboxed python3 to start on a loaded machine.
HivaToolSettings roomy() {
  HivaToolSettings s;
  s.timeout_ms = 20000;
  s.retries = 3;
  s.backoff_ms = 10;
  s.limits.memory_bytes = 256ll << 20;
  s.limits.max_processes = 16;
  return s;
}

// Calls and waits for the answer (a hang fails instead of blocking).
ToolResult call_and_wait(HivaToolSource& src, const std::string& name, const json& args) {
  auto promise = std::make_shared<std::promise<ToolResult>>();
  auto answer = promise->get_future();
  src.call(name, args, {}, [promise](ToolResult r) { promise->set_value(std::move(r)); });
  if (answer.wait_for(std::chrono::seconds(180)) != std::future_status::ready)
    return ToolResult::error("test: no answer within 180 s");
  return answer.get();
}

ToolResult run_tool(HivaToolSource& src, const std::string& code, const std::string& input = "") {
  return call_and_wait(src, kAgentTool, json{{"code", code}, {"input", input}});
}

// The answer when it came before call() returned, else a marker error.
ToolResult answered_at_once(HivaToolSource& src, const std::string& name, const json& args) {
  std::optional<ToolResult> got;
  src.call(name, args, {}, [&got](ToolResult r) { got = std::move(r); });
  return got ? *got : ToolResult::error("test: not answered at once");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class HivaToolSourceSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KAISHA_DATA_DIR", KAISHA_SOURCE_DIR, 1);
    Status s = sandbox::sandbox_available();
    if (!s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }
};

TEST_F(HivaToolSourceSandbox, AToolReturnsItsResult) {
  HivaToolSource src(roomy());
  const std::string code = "def tool_function(input_data, **kwargs):\n    return input_data.upper()\n";
  ToolResult r = run_tool(src, code, "abc");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["result"], "ABC");
  EXPECT_EQ(r.output["truncated"], false);
  EXPECT_EQ(r.output["attempts"], 1);
  EXPECT_EQ(r.output["failures"], json::array());
  const std::string hash = r.output["code_hash"];
  EXPECT_EQ(hash, ToolMetrics::code_hash(code));
  const json m = src.metrics()[hash];
  EXPECT_EQ(m["calls"], 1);
  EXPECT_EQ(m["runs"], 1);
  EXPECT_EQ(m["failures"], 0);
  EXPECT_EQ(m["timeouts"], 0);
}

TEST_F(HivaToolSourceSandbox, ARaisedExceptionGivesItsTextAndIsNotRetried) {
  HivaToolSource src(roomy());
  ToolResult r = run_tool(src, "def tool_function(input_data):\n    raise ValueError('no way: ' + input_data)\n", "x");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.output["error"], "ValueError: no way: x");
  EXPECT_EQ(r.output["kind"], "tool_error");
  EXPECT_EQ(r.output["attempts"], 1);
  ASSERT_EQ(r.output["failures"].size(), 1u);
  EXPECT_EQ(r.output["failures"][0]["kind"], "tool_error");
  // The traceback shows the tool's own line, not the runner's frames.
  const std::string tb = r.output["traceback"];
  EXPECT_TRUE(contains(tb, "hiva_tool.py\", line 2, in tool_function")) << tb;
  EXPECT_TRUE(contains(tb, "raise ValueError")) << tb;
  EXPECT_FALSE(contains(tb, "function_runner")) << tb;
  EXPECT_TRUE(contains(r.message, "ValueError: no way: x")) << r.message;
  EXPECT_EQ(src.metrics()[r.output["code_hash"].get<std::string>()]["runs"], 1);
  // The agent's code failed, not the tool: never counted against its breaker.
  EXPECT_EQ(company::classify_tool_error(r), company::ToolErrorClass::invalid_input);
}

// §14 item 22 with short settings: killed at the timeout, retried the
// configured number of times, the failures recorded in the metrics.
TEST_F(HivaToolSourceSandbox, AnInfiniteLoopIsKilledAtTheTimeoutAndRetried) {
  HivaToolSettings s = roomy();
  s.timeout_ms = 1000;
  s.retries = 2;
  s.backoff_ms = 20;
  HivaToolSource src(s);
  const std::string code = "def tool_function(input_data):\n    while True:\n        pass\n";
  ToolResult r = run_tool(src, code);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.output["kind"], "timeout");
  EXPECT_EQ(r.output["attempts"], 3);
  ASSERT_EQ(r.output["failures"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const json& f = r.output["failures"][i];
    EXPECT_EQ(f["attempt"], i + 1);
    EXPECT_EQ(f["kind"], "timeout");
    EXPECT_TRUE(contains(f["error"], "1000 ms")) << f;
    EXPECT_GE(f["ms"].get<int64_t>(), 1000) << f;  // it ran until the wall clock, not less
  }
  EXPECT_TRUE(contains(r.message, "3 attempts")) << r.message;
  const json m = src.metrics()[ToolMetrics::code_hash(code)];
  EXPECT_EQ(m["calls"], 1);
  EXPECT_EQ(m["runs"], 3);
  EXPECT_EQ(m["failures"], 3);
  EXPECT_EQ(m["timeouts"], 3);
  EXPECT_GE(m["total_ms"].get<int64_t>(), 3000);
}

TEST_F(HivaToolSourceSandbox, ACrashIsRetried) {
  HivaToolSettings s = roomy();
  s.retries = 1;
  HivaToolSource src(s);
  ToolResult r = run_tool(src, "import os\ndef tool_function(input_data):\n    os._exit(3)\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.output["kind"], "crash");
  EXPECT_EQ(r.output["attempts"], 2);
  EXPECT_TRUE(contains(r.output["error"], "exited with status 3")) << r.output;
  EXPECT_EQ(company::classify_tool_error(r), company::ToolErrorClass::invalid_input);
}

TEST_F(HivaToolSourceSandbox, PrintingToStdoutCannotCorruptTheResult) {
  HivaToolSource src(roomy());
  ToolResult r = run_tool(src,
                          "import os, sys\n"
                          "def tool_function(input_data):\n"
                          "    print('{\"ok\": true, \"result\": \"forged\"}')\n"
                          "    os.write(1, b'garbage without a newline')\n"
                          "    sys.__stdout__.write('more garbage')\n"
                          "    return 'fine'\n");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["result"], "fine");
}

TEST_F(HivaToolSourceSandbox, GarbageOnTheReplyStreamIsAClearProtocolError) {
  HivaToolSource src(roomy());
  // Finds the runner's reply pipe, writes garbage to it and leaves.
  ToolResult r = run_tool(src,
                          "import os, stat\n"
                          "def tool_function(input_data):\n"
                          "    for fd in range(3, 64):\n"
                          "        try:\n"
                          "            if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
                          "                os.write(fd, b'garbage, not JSON')\n"
                          "        except OSError:\n"
                          "            pass\n"
                          "    os._exit(0)\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.output["kind"], "protocol");
  EXPECT_EQ(r.output["attempts"], 1);  // the same code breaks the reply again
  const std::string err = r.output["error"];
  EXPECT_TRUE(contains(err, "without a JSON reply line")) << err;
  EXPECT_TRUE(contains(err, "'garbage, not JSON'")) << err;
}

TEST_F(HivaToolSourceSandbox, JapaneseAndEmojiRoundTrip) {
  HivaToolSource src(roomy());
  const std::string input = "日本語の入力 🎌 — naïve";
  ToolResult r = run_tool(src, "def tool_function(input_data):\n    return input_data + ' ✅ 絵文字😀'\n", input);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["result"], input + " ✅ 絵文字😀");

  r = run_tool(src, "def tool_function(input_data):\n    return {'語': input_data, 'len': len(input_data)}\n", "🍣寿司");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["result"], (json{{"語", "🍣寿司"}, {"len", 3}}));

  // An exception's text survives too.
  r = run_tool(src, "def tool_function(input_data):\n    raise KeyError('キー🔑')\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.output["error"], "KeyError: 'キー🔑'");
}

TEST_F(HivaToolSourceSandbox, ALongResultIsCutAtACodePointBoundary) {
  HivaToolSettings s = roomy();
  s.max_result_bytes = 7;
  HivaToolSource src(s);
  ToolResult r = run_tool(src, "def tool_function(input_data):\n    return '😀😀😀'\n");
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["result"], "😀");  // 4 bytes; a second emoji would make 8
  EXPECT_EQ(r.output["truncated"], true);
}

TEST_F(HivaToolSourceSandbox, EachRunHasAFreshWorkspaceAndNoNetworkOrHostEnv) {
  setenv("HIVA_TOOL_TEST_SECRET", "host-secret", 1);
  HivaToolSource src(roomy());
  const std::string code =
      "import os, socket\n"
      "def tool_function(input_data):\n"
      "    seen = os.path.exists('note.txt')\n"
      "    open('note.txt', 'w').write('left behind')\n"
      "    return {'seen': seen, 'cwd': os.getcwd(),\n"
      "            'secret': os.environ.get('HIVA_TOOL_TEST_SECRET'),\n"
      "            'interfaces': sorted(n for _, n in socket.if_nameindex())}\n";
  for (int i = 0; i < 2; ++i) {
    ToolResult r = run_tool(src, code);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.output["result"]["seen"], false) << "run " << i;  // nothing of the earlier run
    EXPECT_EQ(r.output["result"]["cwd"], "/workspace");
    EXPECT_TRUE(r.output["result"]["secret"].is_null());
    EXPECT_EQ(r.output["result"]["interfaces"], (json{"lo"}));
  }
  unsetenv("HIVA_TOOL_TEST_SECRET");
}

TEST_F(HivaToolSourceSandbox, ValidateAcceptsAGoodToolWithoutCallingIt) {
  HivaToolSource src(roomy());
  ToolResult r = call_and_wait(src, kValidateTool,
                               json{{"code",
                                     "def tool_function(input_data, **kwargs):\n"
                                     "    raise RuntimeError('must not be called')\n"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["signature"], "(input_data, **kwargs)");
}

TEST_F(HivaToolSourceSandbox, ValidateRejectsASyntaxErrorNamingTheLine) {
  HivaToolSource src(roomy());
  ToolResult r =
      call_and_wait(src, kValidateTool, json{{"code", "def tool_function(input_data):\n    return input_data +\n"}});
  ASSERT_FALSE(r.ok);
  const std::string err = r.output["error"];
  EXPECT_EQ(err.rfind("SyntaxError: ", 0), 0u) << err;
  EXPECT_TRUE(contains(err, "line 2")) << err;
  EXPECT_TRUE(contains(r.message, err)) << r.message;
  EXPECT_EQ(company::classify_tool_error(r), company::ToolErrorClass::invalid_input);
}

TEST_F(HivaToolSourceSandbox, ValidateRejectsAMissingOrUncallableToolFunction) {
  HivaToolSource src(roomy());
  ToolResult r = call_and_wait(src, kValidateTool, json{{"code", "def helper(x):\n    return x\n"}});
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.output["error"], "NameError: the code defines no tool_function")) << r.output;

  r = call_and_wait(src, kValidateTool, json{{"code", "tool_function = 42\n"}});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.output["error"], "TypeError: tool_function is a int, not a function");

  r = call_and_wait(src, kValidateTool, json{{"code", "def tool_function(a, b):\n    return a\n"}});
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.output["error"], "cannot be called with one positional argument")) << r.output;
}

// §14 item 15: a generated tool that imports os is rejected.
TEST_F(HivaToolSourceSandbox, ValidateRefusesForbiddenImportsBeforeRunningAnything) {
  HivaToolSource src(roomy());
  const json forbidden = json{"os", "subprocess"};
  // The module's first line would raise if it ran: the refusal comes first.
  for (const std::string& code :
       {std::string("raise SystemError('ran')\nimport json, os.path\n"),
        std::string("raise SystemError('ran')\nfrom os import path\n"),
        std::string("raise SystemError('ran')\nimport importlib; importlib.import_module('os')\n")}) {
    ToolResult r = call_and_wait(src, kValidateTool,
                                 json{{"code", code + "def tool_function(input_data):\n    return input_data\n"},
                                      {"forbidden_modules", forbidden}});
    ASSERT_FALSE(r.ok) << code;
    EXPECT_EQ(r.output["error"], "ForbiddenImport: line 2 imports os; HiVA tools may not use os, subprocess") << code;
  }
  ToolResult r = call_and_wait(src, kValidateTool,
                               json{{"code", "import json\ndef tool_function(input_data):\n    return json.dumps(1)\n"},
                                    {"forbidden_modules", forbidden}});
  EXPECT_TRUE(r.ok) << r.message;
  // Without the list, importing os is the sandbox's business.
  r = call_and_wait(src, kValidateTool, json{{"code", "import os\ndef tool_function(input_data):\n    return 1\n"}});
  EXPECT_TRUE(r.ok) << r.message;
}

TEST(HivaToolSourceArgs, BadArgsAreRefusedAtOnceNamingTheField) {
  HivaToolSource src(roomy());
  ToolResult r = answered_at_once(src, kAgentTool, json{{"input", "x"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "hiva.agent_tool: args.code is missing");

  r = answered_at_once(src, kAgentTool, json{{"code", 5}, {"input", "x"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "hiva.agent_tool: args.code must be a string, got number");

  r = answered_at_once(src, kAgentTool, json{{"code", "def tool_function(x): return x"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "hiva.agent_tool: args.input is missing");

  r = answered_at_once(src, kAgentTool, json{{"code", "def tool_function(x): return x"}, {"input", json::array()}});
  EXPECT_EQ(r.message, "hiva.agent_tool: args.input must be a string, got array");

  r = answered_at_once(src, kValidateTool, json{{"code", std::string(kMaxToolCodeBytes + 1, '#')}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "args.code is 65537 bytes; at most 65536")) << r.message;

  r = answered_at_once(src, kValidateTool,
                       json{{"code", "def tool_function(x): return x"}, {"forbidden_modules", "os"}});
  EXPECT_EQ(r.message, "hiva.validate_tool: args.forbidden_modules must be a list of module names, got string");
  r = answered_at_once(src, kValidateTool,
                       json{{"code", "def tool_function(x): return x"}, {"forbidden_modules", json{"os", 1}}});
  EXPECT_EQ(r.message, "hiva.validate_tool: args.forbidden_modules[1] must be a module name (a non-empty string)");

  r = answered_at_once(src, kValidateTool, json("def tool_function(x): return x"));
  EXPECT_EQ(r.message, "hiva.validate_tool: args must be a JSON object, got string");

  r = answered_at_once(src, "hiva.nope", json::object());
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "no tool named 'hiva.nope'")) << r.message;
  EXPECT_EQ(src.metrics(), json::object());  // nothing ran
}

TEST(HivaToolSourceArgs, OffersNoSpecsAndAllToolsAreRepeatable) {
  HivaToolSource src(roomy());
  EXPECT_TRUE(src.specs().empty());
  EXPECT_EQ(src.origin(), "hiva");
  EXPECT_TRUE(src.repeatable(kAgentTool));
  EXPECT_TRUE(src.repeatable(kValidateTool));
  EXPECT_FALSE(src.repeatable(kEnvironmentTool));  // the environment actor's, not this source's
  EXPECT_TRUE(src.repeatable(kEmbedTool));
  EXPECT_FALSE(src.repeatable("execute_code"));
  // The strategy's own tools, with each run's timeout.
  EXPECT_EQ(src.metadata(kAgentTool).category, company::ToolCategory::strategy);
  EXPECT_EQ(src.metadata(kAgentTool).timeout_ms, roomy().timeout_ms);
  EXPECT_EQ(src.metadata(kEmbedTool).timeout_ms, 0);
}

TEST(HivaToolSourceArgs, RetriesBackOffExponentially) {
  HivaToolSettings s;  // the defaults: 0.5 s, 1 s, 2 s
  EXPECT_EQ(s.timeout_ms, 30000);
  EXPECT_EQ(s.retries, 3);
  EXPECT_EQ(HivaToolSource::backoff_before(s, 1), 500);
  EXPECT_EQ(HivaToolSource::backoff_before(s, 2), 1000);
  EXPECT_EQ(HivaToolSource::backoff_before(s, 3), 2000);
}

TEST(HivaToolSourceEmbed, TheHookEmbedsTheTextsInOrderOnAWorker) {
  std::promise<std::thread::id> hook_thread;
  std::vector<std::string> seen;
  HivaToolSource src(roomy(), [&](const std::vector<std::string>& texts) {
    hook_thread.set_value(std::this_thread::get_id());
    seen = texts;
    std::vector<std::vector<float>> out;
    for (const std::string& t : texts) out.push_back({float(t.size()), 1.0f});
    return Result<std::vector<std::vector<float>>>(out);
  });
  ToolResult r = call_and_wait(src, kEmbedTool, json{{"texts", {"ab", "足し算"}}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(seen, (std::vector<std::string>{"ab", "足し算"}));
  EXPECT_EQ(r.output["vectors"], json::parse("[[2.0, 1.0], [9.0, 1.0]]"));
  EXPECT_NE(hook_thread.get_future().get(), std::this_thread::get_id());
}

TEST(HivaToolSourceEmbed, AnEmbedderErrorOrAWrongCountIsAnErrorAndBadArgsAreRefusedAtOnce) {
  HivaToolSource failing(roomy(), [](const std::vector<std::string>&) {
    return Result<std::vector<std::vector<float>>>(Error{"llm", "embedding model openai:e: HTTP 500"});
  });
  ToolResult r = call_and_wait(failing, kEmbedTool, json{{"texts", {"a"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "HTTP 500")) << r.message;

  HivaToolSource short_answer(roomy(), [](const std::vector<std::string>&) {
    return Result<std::vector<std::vector<float>>>(std::vector<std::vector<float>>{{1.0f}});
  });
  r = call_and_wait(short_answer, kEmbedTool, json{{"texts", {"a", "b"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "1 vectors for 2 texts")) << r.message;

  r = answered_at_once(short_answer, kEmbedTool, json{{"texts", "a"}});
  EXPECT_TRUE(contains(r.message, "args.texts must be a list of strings")) << r.message;
  r = answered_at_once(short_answer, kEmbedTool, json{{"texts", {"a", 3}}});
  EXPECT_TRUE(contains(r.message, "args.texts[1] must be a string")) << r.message;
  r = answered_at_once(short_answer, kEmbedTool, json{{"texts", json::array()}});
  ASSERT_TRUE(r.ok) << r.message;  // nothing to embed, answered without the embedder
  EXPECT_EQ(r.output["vectors"], json::array());
  r = answered_at_once(short_answer, kEmbedTool, json::object());
  EXPECT_TRUE(contains(r.message, "args.texts is missing")) << r.message;

  HivaToolSource none(roomy());
  r = answered_at_once(none, kEmbedTool, json{{"texts", {"a"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "no embedder is configured")) << r.message;
}

TEST(HivaToolSourceEmbed, CallsBeyondTheBoundAreRefusedAtOnce) {
  HivaToolSettings s = roomy();
  s.workers = 1;
  s.max_pending = 1;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  HivaToolSource src(s, [released](const std::vector<std::string>& texts) {
    released.wait();
    return Result<std::vector<std::vector<float>>>(std::vector<std::vector<float>>(texts.size(), {1.0f}));
  });
  const json one{{"texts", {"a"}}};
  auto first = std::make_shared<std::promise<ToolResult>>();
  src.call(kEmbedTool, one, {}, [first](ToolResult r) { first->set_value(std::move(r)); });
  ToolResult second = answered_at_once(src, kEmbedTool, one);
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(contains(second.message, "already waiting or running")) << second.message;
  release.set_value();
  EXPECT_TRUE(first->get_future().get().ok);
  // With the first answered, there is room again.
  EXPECT_TRUE(call_and_wait(src, kEmbedTool, one).ok);
}

TEST(HivaToolSourceEmbed, CallsAfterStopAreRefused) {
  HivaToolSource src(roomy(), [](const std::vector<std::string>& texts) {
    return Result<std::vector<std::vector<float>>>(std::vector<std::vector<float>>(texts.size(), {1.0f}));
  });
  src.stop();
  ToolResult r = answered_at_once(src, kEmbedTool, json{{"texts", {"a"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.message, "stopped")) << r.message;
}

TEST_F(HivaToolSourceSandbox, StopCancelsAWaitingRetry) {
  HivaToolSettings s = roomy();
  s.timeout_ms = 1000;
  s.backoff_ms = 600000;  // the retry would come only after ten minutes
  HivaToolSource src(s);
  const std::string code = "def tool_function(input_data):\n    while True:\n        pass\n";
  auto answer = std::make_shared<std::promise<ToolResult>>();
  src.call(kAgentTool, json{{"code", code}, {"input", ""}}, {},
           [answer](ToolResult r) { answer->set_value(std::move(r)); });
  // Wait for the first attempt to end, then stop during the backoff.
  const std::string hash = ToolMetrics::code_hash(code);
  for (int i = 0; i < 1800 && src.metrics().value(hash, json::object()).value("runs", 0) < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  src.stop();
  auto future = answer->get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(0)), std::future_status::ready);  // answered before stop returned
  ToolResult r = future.get();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.output["attempts"], 1);
  EXPECT_EQ(r.output["stopped"], true);
  EXPECT_TRUE(contains(r.message, "stopping")) << r.message;
}

}  // namespace hiva_tool_source_test
}  // namespace kaisha::hiva
