// The built-in tools through their ToolSource: per-session workspaces,
// PythonSandboxTool (ok, error, timeout) under bubblewrap, GetWebsite against
// a local HTTP server (text, summary, selector, timeout, size cap), the web
// search backend and its disabled message, and the invocation switch.
#include "runtime/tools/builtin_tools.hpp"

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "tests/runtime/http/test_server.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::call_sync;
using testing::TempDir;

class BuiltinToolsTest : public ::testing::Test {
 protected:
  std::shared_ptr<BuiltinTools> make(BuiltinToolsOptions o = {}) {
    o.workspace_root = root.path();
    o.code_limits.wall_timeout_ms = 5000;
    o.code_limits.cpu_seconds = 4;
    if (!o.switches) o.switches = switches;
    auto p = BuiltinTools::create(std::move(o));
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? *p : nullptr;
  }
  void need_sandbox() {
    if (Status s = sandbox::sandbox_available(); !s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }
  TempDir root;
  std::shared_ptr<ToolSwitches> switches = std::make_shared<ToolSwitches>();
};

TEST_F(BuiltinToolsTest, OffersTheBuiltinSpecs) {
  auto p = make();
  std::vector<std::string> names;
  for (const auto& s : p->specs()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"ListFiles", "ReadFile", "WriteFile", "GetWebsite", "GoogleSearchTool",
                                             "Calculator", "PythonSandboxTool"}));
  EXPECT_EQ(p->origin(), "builtin");
}

TEST_F(BuiltinToolsTest, MetadataNamesTheSandboxToolAndTheTimeouts) {
  BuiltinToolsOptions o;
  o.web.timeout_ms = 1234;
  auto p = make(o);
  const company::ToolMetadata code = p->metadata("PythonSandboxTool");
  EXPECT_EQ(code.category, company::ToolCategory::sandbox);
  EXPECT_EQ(code.timeout_ms, 5000);
  EXPECT_EQ(p->metadata("GetWebsite").category, company::ToolCategory::builtin);
  EXPECT_EQ(p->metadata("GetWebsite").timeout_ms, 1234);
  EXPECT_EQ(p->metadata("Calculator"), (company::ToolMetadata{company::ToolCategory::builtin, 1, "", 0}));
}

TEST_F(BuiltinToolsTest, SessionsHaveSeparateWorkspaces) {
  auto p = make();
  ASSERT_TRUE(call_sync(*p, "WriteFile", {{"file_path", "a.txt"}, {"content", "one"}}, "s1").ok);
  EXPECT_EQ(root.read("s1/a.txt"), "one");
  auto other = call_sync(*p, "ReadFile", {{"file_path", "a.txt"}}, "s2");
  EXPECT_FALSE(other.ok);
  EXPECT_NE(other.message.find("does not exist"), std::string::npos) << other.message;
  auto bad = call_sync(*p, "ListFiles", {{"directory", "."}}, "../escape");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.message.find("cannot name a workspace"), std::string::npos) << bad.message;
  // Names starting with '.' are kaisha's own under the root (the pyramid's .tasks).
  auto hidden = call_sync(*p, "WriteFile", {{"file_path", "a.txt"}, {"content", "x"}}, ".tasks");
  EXPECT_FALSE(hidden.ok);
  EXPECT_NE(hidden.message.find("starts with '.'"), std::string::npos) << hidden.message;
  EXPECT_FALSE(std::filesystem::exists(root.file(".tasks/a.txt")));
}

TEST_F(BuiltinToolsTest, CalculatorAnswersWithResultAndFormatted) {
  auto p = make();
  auto r = call_sync(*p, "Calculator", {{"expression", "(123 + 456) * 789 / 12"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["formatted"], "38069.25");
  auto e = call_sync(*p, "Calculator", {{"expression", "__import__('os')"}});
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.output["error_type"], "security");
}

TEST_F(BuiltinToolsTest, InvocationSwitchRefusesWithTheHashiruText) {
  auto p = make();
  switches->tool_invocation = false;
  auto r = call_sync(*p, "Calculator", {{"expression", "1+1"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, company::texts::kToolInvocationDisabled);
  switches->tool_invocation = true;
  EXPECT_TRUE(call_sync(*p, "Calculator", {{"expression", "1+1"}}).ok);
}

TEST_F(BuiltinToolsTest, UnknownToolIsNotFound) {
  auto p = make();
  EXPECT_EQ(call_sync(*p, "Nope", json::object()).message, "Tool Nope not found");
}

TEST_F(BuiltinToolsTest, PythonSandboxToolRunsInTheWorkspace) {
  need_sandbox();
  auto p = make();
  ASSERT_TRUE(call_sync(*p, "WriteFile", {{"file_path", "in.txt"}, {"content", "21"}}).ok);
  auto r = call_sync(*p, "PythonSandboxTool",
                     {{"code", "n = int(open('in.txt').read())\nprint(n * 2)\nopen('out.txt', 'w').write('done')\n"}});
  ASSERT_TRUE(r.ok) << r.message << " " << r.output.dump();
  EXPECT_EQ(r.message, "Python code executed successfully.");
  EXPECT_EQ(r.output["stdout"], "42\n");
  EXPECT_EQ(r.output["return_code"], 0);
  auto back = call_sync(*p, "ReadFile", {{"file_path", "out.txt"}});
  ASSERT_TRUE(back.ok) << back.message;
  EXPECT_EQ(back.output, "done");
}

TEST_F(BuiltinToolsTest, PythonSandboxToolReportsErrorsAndCannotReachTheHost) {
  need_sandbox();
  auto p = make();
  TempDir host;
  host.write("secret.txt", "host secret");
  auto r = call_sync(*p, "PythonSandboxTool",
                     {{"code", "import sys\nprint(open('" + host.file("secret.txt") + "').read())\n"}});
  ASSERT_TRUE(r.ok) << r.message;  // the tool ran; the code failed
  EXPECT_EQ(r.output["return_code"], 1);
  EXPECT_NE(r.output["stderr"].get<std::string>().find("FileNotFoundError"), std::string::npos) << r.output.dump();
  EXPECT_EQ(r.output["stdout"], "");
}

TEST_F(BuiltinToolsTest, PythonSandboxToolTimesOut) {
  need_sandbox();
  BuiltinToolsOptions o;
  auto p = make(o);
  auto r = call_sync(*p, "PythonSandboxTool", {{"code", "import time\nprint('start', flush=True)\ntime.sleep(60)\n"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "Python code execution timed out.");
  EXPECT_EQ(r.output["stdout"], "start\n");
}

TEST_F(BuiltinToolsTest, SearchIsDisabledWithoutABackend) {
  auto p = make();
  auto r = call_sync(*p, "GoogleSearchTool", {{"query", "bacon pasta recipe"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, kSearchDisabled);
  BuiltinToolsOptions bad;
  bad.workspace_root = root.path();
  bad.web.search_engine = "bing";
  auto refused = BuiltinTools::create(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("unknown engine 'bing'"), std::string::npos);
}

TEST_F(BuiltinToolsTest, SearchThroughSearxng) {
  http::testing::TestServer server;
  std::string seen_query;
  server.server.Get("/search", [&](const httplib::Request& req, httplib::Response& res) {
    seen_query = req.get_param_value("q");
    res.set_content(R"({"results": [{"title": "Garlic Bacon Pasta", "url": "https://a.example/1", "content": "Easy."},
                                     {"title": "Creamy Bacon Pasta Sauce", "url": "https://b.example/2"}]})",
                    "application/json");
  });
  server.start();
  BuiltinToolsOptions o;
  o.web.search_engine = "searxng";
  o.web.search_url = server.url("");
  auto p = make(o);
  auto r = call_sync(*p, "GoogleSearchTool", {{"query", "bacon pasta recipe"}, {"website", "example.com"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(seen_query, "bacon pasta recipe site:example.com");
  ASSERT_EQ(r.output.size(), 2u);
  EXPECT_EQ(r.output[0]["title"], "Garlic Bacon Pasta");
  EXPECT_EQ(r.output[0]["url"], "https://a.example/1");
  EXPECT_EQ(r.output[0]["snippet"], "Easy.");
}

class GetWebsiteTest : public BuiltinToolsTest {
 protected:
  void SetUp() override {
    server.server.Get("/page", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "<html><head><title>x</title><script>bad()</script></head><body><nav>Home</nav>"
          "<article><h1>Rivers</h1><p>Rivers carry water from the mountains to the sea.</p>"
          "<p>Rivers shape the valleys they cross over many years.</p></article></body></html>",
          "text/html");
    });
    server.server.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(std::chrono::seconds(3));
      res.set_content("late", "text/plain");
    });
    server.server.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(200000, 'x'), "text/plain");
    });
    server.server.Get("/missing", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
    server.start();
    BuiltinToolsOptions o;
    o.web.timeout_ms = 1000;
    o.web.max_page_bytes = 50000;
    o.web.allow_private_addresses = true;  // the test server is on loopback
    tools = make(o);
  }
  http::testing::TestServer server;
  std::shared_ptr<BuiltinTools> tools;
};

TEST_F(GetWebsiteTest, FullTextHtmlAndSelector) {
  auto text = call_sync(*tools, "GetWebsite", {{"url", server.url("/page")}, {"output_type", "full_text"}});
  ASSERT_TRUE(text.ok) << text.message;
  EXPECT_EQ(text.output,
            "Home\nRivers\nRivers carry water from the mountains to the sea.\n"
            "Rivers shape the valleys they cross over many years.");
  auto html = call_sync(*tools, "GetWebsite", {{"url", server.url("/page")}, {"output_type", "html"}});
  ASSERT_TRUE(html.ok);
  EXPECT_NE(html.output.get<std::string>().find("<script>bad()</script>"), std::string::npos);
  auto picked = call_sync(*tools, "GetWebsite",
                          {{"url", server.url("/page")}, {"output_type", "full_text"}, {"css_selector", "article"}});
  ASSERT_TRUE(picked.ok) << picked.message;
  EXPECT_EQ(picked.output.get<std::string>().find("Home"), std::string::npos);
  auto summary = call_sync(*tools, "GetWebsite", {{"url", server.url("/page")}});  // summary by default
  ASSERT_TRUE(summary.ok);
  EXPECT_NE(summary.output.get<std::string>().find("Rivers carry water"), std::string::npos) << summary.output;
}

TEST_F(GetWebsiteTest, TimeoutSizeCapStatusAndScheme) {
  auto slow = call_sync(*tools, "GetWebsite", {{"url", server.url("/slow")}});
  EXPECT_FALSE(slow.ok);
  EXPECT_NE(slow.message.find("did not answer within 1000 ms"), std::string::npos) << slow.message;
  auto big = call_sync(*tools, "GetWebsite", {{"url", server.url("/big")}});
  EXPECT_FALSE(big.ok);
  EXPECT_NE(big.message.find("larger than the 50000-byte limit"), std::string::npos) << big.message;
  auto missing = call_sync(*tools, "GetWebsite", {{"url", server.url("/missing")}});
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.message.find("HTTP 404"), std::string::npos) << missing.message;
  auto file = call_sync(*tools, "GetWebsite", {{"url", "file:///etc/passwd"}});
  EXPECT_FALSE(file.ok);
  EXPECT_NE(file.message.find("only http:// and https://"), std::string::npos) << file.message;
}

}  // namespace
}  // namespace kaisha::tools
