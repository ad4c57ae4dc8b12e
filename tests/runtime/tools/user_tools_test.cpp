// ToolCreator / ToolDeletor and created tools (hashiru.md §2.7, §9 items
// 38-45): a valid tool is persisted and callable at once, each kind of
// invalid tool is not kept and answers with the loader error plus HASHIRU's
// hint, ToolDeletor stays inside the user-tools area, persisted tools come
// back in a new source, credentials pass only by env_allow.
#include "runtime/tools/user_tools.hpp"

#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "runtime/tools/tool_index.hpp"
#include "tests/runtime/http/test_server.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

namespace fs = std::filesystem;
using testing::call_sync;
using testing::has_tool;
using testing::TempDir;

const char* kHint = "doesn't follow the required format, please read the other tool implementations for reference.";

// hashiru.md Example 2, step 8: the tool as the CEO finally wrote it.
const char* kCurrentTimeTool = R"(import datetime

__all__ = ['CurrentTimeTool']

class CurrentTimeTool():
    dependencies = []
    inputSchema = {"name": "CurrentTimeTool", "description": "Gets the current time", "parameters": {"type": "object", "properties": {}, "required": []}}
    def run(self, **kwargs):
        now = datetime.datetime.now()
        current_time = now.strftime("%H:%M:%S")
        return {"status": "success", "message": "Current time retrieved successfully", "output": current_time}
)";

std::string without_all(std::string code) {
  code.erase(code.find("__all__"), std::string("__all__ = ['CurrentTimeTool']\n").size());
  return code;
}

class UserToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Status s = sandbox::sandbox_available(); !s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }
  UserToolsOptions options(bool with_defaults = false) {
    UserToolsOptions o;
    o.user_dir = dir.file("user_tools");
    o.default_dir = with_defaults ? data_file("data/tools/default_tools") : "";
    o.workspace_root = dir.file("work");
    o.limits.wall_timeout_ms = 8000;
    o.load_limits.wall_timeout_ms = 8000;
    o.reserved_names = {"ReadFile", "AskAgent"};
    o.switches = switches;
    return o;
  }
  std::shared_ptr<UserTools> make(bool with_defaults = false) {
    auto p = UserTools::create(options(with_defaults));
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? *p : nullptr;
  }
  company::ToolResult create(UserTools& p, const std::string& name, const std::string& code) {
    return call_sync(p, "ToolCreator", {{"name", name}, {"tool_code", code}});
  }
  TempDir dir;
  std::shared_ptr<ToolSwitches> switches = std::make_shared<ToolSwitches>();
};

TEST_F(UserToolsTest, CreatedToolIsPersistedListedAndCallable) {
  auto p = make();
  EXPECT_TRUE(has_tool(*p, "ToolCreator"));
  EXPECT_TRUE(has_tool(*p, "ToolDeletor"));
  EXPECT_FALSE(has_tool(*p, "CurrentTimeTool"));
  auto r = create(*p, "CurrentTimeTool", kCurrentTimeTool);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.message, "Tool created successfully");
  EXPECT_EQ(r.output, (json{{"tool_file_path", "src/tools/user_tools/CurrentTimeTool.py"},
                            {"tool_name", "CurrentTimeTool"},
                            {"version", 1}}));
  EXPECT_TRUE(fs::exists(dir.file("user_tools/CurrentTimeTool.py")));
  ASSERT_TRUE(has_tool(*p, "CurrentTimeTool"));  // on the very next specs() call

  auto now = call_sync(*p, "CurrentTimeTool", json::object());
  ASSERT_TRUE(now.ok) << now.message << " " << now.output.dump();
  EXPECT_EQ(now.message, "Current time retrieved successfully");
  const std::string t = now.output.get<std::string>();
  ASSERT_EQ(t.size(), 8u) << t;  // HH:MM:SS
  EXPECT_EQ(t[2], ':');
  EXPECT_EQ(t[5], ':');
}

TEST_F(UserToolsTest, PersistedToolsAreReloadedByANewProvider) {
  {
    auto p = make();
    ASSERT_TRUE(create(*p, "CurrentTimeTool", kCurrentTimeTool).ok);
  }
  auto again = make();
  EXPECT_TRUE(again->load_errors().empty());
  ASSERT_TRUE(has_tool(*again, "CurrentTimeTool"));
  EXPECT_TRUE(call_sync(*again, "CurrentTimeTool", json::object()).ok);
}

TEST_F(UserToolsTest, ARewrittenToolIsTheNextVersionAndTheOldOneIsKept) {
  const std::string v2 = std::string(kCurrentTimeTool) + "\n# v2\n";
  {
    auto p = make();
    ASSERT_TRUE(create(*p, "CurrentTimeTool", kCurrentTimeTool).ok);
    company::ToolMetadata m = p->metadata("CurrentTimeTool");
    EXPECT_EQ(m.category, company::ToolCategory::created);
    EXPECT_EQ(m.version, 1);
    EXPECT_EQ(m.code_hash, company::tool_code_hash(kCurrentTimeTool));
    EXPECT_EQ(m.timeout_ms, 8000);
    auto r = create(*p, "CurrentTimeTool", v2);
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.output["version"], 2);
    EXPECT_EQ(p->metadata("CurrentTimeTool").version, 2);
    EXPECT_EQ(p->metadata("CurrentTimeTool").code_hash, company::tool_code_hash(v2));
    // The same code again is no new version.
    EXPECT_EQ(create(*p, "CurrentTimeTool", v2).output["version"], 2);
    EXPECT_EQ(p->metadata("ToolCreator").category, company::ToolCategory::builtin);
  }
  // Kept on disk: a new source knows both versions and which one runs.
  auto again = make();
  company::ToolVersions v = again->versions("CurrentTimeTool");
  ASSERT_EQ(v.all().size(), 2u);
  EXPECT_EQ(v.all()[0].version, 1);
  EXPECT_EQ(v.all()[0].code, kCurrentTimeTool);
  EXPECT_EQ(v.all()[1].code_hash, company::tool_code_hash(v2));
  EXPECT_EQ(again->metadata("CurrentTimeTool").version, 2);
  // Deleted and made again: the numbering goes on.
  ASSERT_TRUE(call_sync(*again, "ToolDeletor",
                        {{"name", "CurrentTimeTool"}, {"file_path", "src/tools/user_tools/CurrentTimeTool.py"}})
                  .ok);
  EXPECT_EQ(create(*again, "CurrentTimeTool", kCurrentTimeTool).output["version"], 3);
}

TEST_F(UserToolsTest, AToolEditedOnDiskIsValidatedAgainAtStart) {
  {
    auto p = make();
    ASSERT_TRUE(create(*p, "CurrentTimeTool", kCurrentTimeTool).ok);
  }
  EXPECT_TRUE(fs::exists(dir.file(std::string("user_tools/") + kToolIndexFile)));
  dir.write("user_tools/CurrentTimeTool.py", without_all(kCurrentTimeTool));
  auto again = make();
  EXPECT_FALSE(has_tool(*again, "CurrentTimeTool"));
  ASSERT_EQ(again->load_errors().size(), 1u);
  EXPECT_NE(again->load_errors()[0].find("src/tools/user_tools/CurrentTimeTool.py: AttributeError: module "
                                         "'CurrentTimeTool' has no attribute '__all__'"),
            std::string::npos)
      << again->load_errors()[0];
}

// The shipped index lets kaisha start without loading the shipped tools in
// the sandbox; it must describe the shipped files exactly.
TEST_F(UserToolsTest, ShippedIndexIsUpToDate) {
  const std::string shipped = data_file("data/tools/default_tools");
  const ToolIndex index = ToolIndex::load(shipped);
  for (const auto& e : fs::directory_iterator(shipped)) {
    if (e.path().extension() != ".py") continue;
    const std::string file = e.path().filename().string();
    const std::string code = read_text_file(e.path().string()).value();
    auto v =
        validate_python_tools({{e.path().stem().string(), std::string(kDefaultToolsPrefix) + "/" + file, code}}, {});
    ASSERT_TRUE(v.ok() && v->front().ok()) << file;
    const ValidatedTool& t = *v->front();
    auto entry = index.find(file, content_hash(code));
    ASSERT_TRUE(entry.has_value()) << shipped << "/" << kToolIndexFile << " is stale for " << file << ": expected hash "
                                   << content_hash(code) << ", entry_class " << t.entry_class << ", spec "
                                   << json{{"name", t.spec.name},
                                           {"description", t.spec.description},
                                           {"parameters", t.spec.parameters}};
    EXPECT_EQ(entry->entry_class, t.entry_class) << file;
    EXPECT_EQ(entry->spec.name, t.spec.name) << file;
    EXPECT_EQ(entry->spec.description, t.spec.description) << file;
    EXPECT_EQ(entry->spec.parameters, t.spec.parameters) << file;
  }
}

TEST_F(UserToolsTest, InvalidToolsAreNotKeptAndTheCeoGetsTheLoaderError) {
  auto p = make();
  struct Case {
    const char* what;
    std::string name, code, loader_error;
  } cases[] = {
      {"missing __all__", "CurrentTimeTool", without_all(kCurrentTimeTool),
       "AttributeError: module 'CurrentTimeTool' has no attribute '__all__'"},
      {"syntax error", "Broken", "__all__ = ['Broken']\nclass Broken(:\n  pass\n", "SyntaxError: "},
      {"entry point missing", "Ghost", "__all__ = ['Ghost']\n",
       "AttributeError: module 'Ghost' has no attribute 'Ghost'"},
      {"spec without description", "NoDesc",
       "__all__ = ['NoDesc']\nclass NoDesc:\n  inputSchema = {'name': 'NoDesc', 'parameters': {'type': 'object', "
       "'properties': {}}}\n  def run(self, **kw):\n    return {}\n",
       "ValueError: inputSchema['description'] must be a str"},
      {"parameters not an object schema", "BadParams",
       "__all__ = ['BadParams']\nclass BadParams:\n  inputSchema = {'name': 'BadParams', 'description': 'd', "
       "'parameters': {'type': 'string'}}\n  def run(self, **kw):\n    return {}\n",
       "must be a JSON Schema object"},
      {"import that raises", "Boom", "raise RuntimeError('import-time failure')\n",
       "RuntimeError: import-time failure"},
      {"missing dependency", "NeedsPkg",
       "__all__ = ['NeedsPkg']\nclass NeedsPkg:\n  dependencies = ['surely_not_installed_pkg==1.0']\n  inputSchema = "
       "{'name': 'NeedsPkg', 'description': 'd', 'parameters': {'type': 'object', 'properties': {}}}\n  def "
       "run(self, **kw):\n    return {}\n",
       "dependency 'surely_not_installed_pkg==1.0' is not installed"},
      {"name differs from spec", "Alias",
       "__all__ = ['Other']\nclass Other:\n  inputSchema = {'name': 'Other', 'description': 'd', 'parameters': "
       "{'type': 'object', 'properties': {}}}\n  def run(self, **kw):\n    return {}\n",
       "inputSchema['name'] is 'Other' but the tool is named 'Alias'"},
  };
  for (const auto& c : cases) {
    auto r = create(*p, c.name, c.code);
    EXPECT_FALSE(r.ok) << c.what;
    EXPECT_EQ(r.message.rfind("ToolCreator with {", 0), 0u) << c.what << ": " << r.message;
    EXPECT_NE(r.message.find(kHint), std::string::npos) << c.what << ": " << r.message;
    EXPECT_NE(r.message.find(c.loader_error), std::string::npos) << c.what << ": " << r.message;
    EXPECT_FALSE(fs::exists(dir.file("user_tools/" + c.name + ".py"))) << c.what;
    EXPECT_FALSE(has_tool(*p, c.name)) << c.what;
  }
  // The fixed version then loads (the Example 2 loop).
  EXPECT_TRUE(create(*p, "CurrentTimeTool", kCurrentTimeTool).ok);
}

TEST_F(UserToolsTest, ModuleThatExitsOrHangsAtImportIsContained) {
  auto o = options();
  o.load_limits.wall_timeout_ms = 2000;
  o.load_limits.cpu_seconds = 1;
  auto p = UserTools::create(o);
  ASSERT_TRUE(p.ok());
  auto exits = create(**p, "Quitter", "import os\nos._exit(0)\n");
  EXPECT_FALSE(exits.ok);
  EXPECT_NE(exits.message.find(kHint), std::string::npos) << exits.message;
  auto hangs = create(**p, "Spinner", "while True:\n  pass\n");
  EXPECT_FALSE(hangs.ok);
  EXPECT_NE(hangs.message.find(kHint), std::string::npos) << hangs.message;
  EXPECT_FALSE(fs::exists(dir.file("user_tools/Spinner.py")));
}

TEST_F(UserToolsTest, NamesOfOtherToolsAndBadNamesAreRefused) {
  auto p = make(/*with_defaults=*/true);
  for (const std::string n : {"ReadFile", "ToolCreator"}) {
    auto r = create(*p, n, kCurrentTimeTool);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("is the name of a built-in tool"), std::string::npos) << r.message;
  }
  auto shipped = create(*p, "WordCount", kCurrentTimeTool);
  EXPECT_NE(shipped.message.find("is a shipped tool"), std::string::npos) << shipped.message;
  for (const std::string n : {"../evil", "two words", "", "9lives"}) {
    auto r = create(*p, n, kCurrentTimeTool);
    EXPECT_NE(r.message.find("is invalid"), std::string::npos) << n << ": " << r.message;
  }
  EXPECT_FALSE(fs::exists(dir.file("evil.py")));
}

TEST_F(UserToolsTest, ShippedToolsLoadAndRun) {
  auto p = make(/*with_defaults=*/true);
  EXPECT_TRUE(p->load_errors().empty()) << p->load_errors().front();
  auto r = call_sync(*p, "WordCount", {{"text", "One river. Two rivers!"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output, (json{{"words", 4}, {"sentences", 2}, {"characters", 22}}));
  auto d = call_sync(*p, "DaysBetween", {{"start", "2025-01-01"}, {"end", "2025-03-01"}});
  ASSERT_TRUE(d.ok) << d.message;
  EXPECT_EQ(d.output, 59);
  EXPECT_EQ(p->metadata("WordCount").category, company::ToolCategory::sandbox);
  EXPECT_EQ(p->metadata("WordCount").version, 1);
  EXPECT_TRUE(p->versions("WordCount").empty());  // shipped code never changes here
}

TEST_F(UserToolsTest, ToolDeletorOnlyDeletesInsideTheUserToolsArea) {
  auto p = make(/*with_defaults=*/true);
  TempDir host;
  const std::string victim = host.write("victim.py", "precious");
  struct Case {
    std::string path, words;
  } cases[] = {
      {victim, "File path must start with src/tools/user_tools/"},
      {"src/tools/default_tools/word_count.py", "File path must start with src/tools/user_tools/"},
      {"../user_tools/x.py", "File path must start with src/tools/user_tools/"},
      {"src/tools/user_tools/../../../" + victim, "is not a tool file directly in"},
      {"src/tools/user_tools/sub/x.py", "is not a tool file directly in"},
      {"src/tools/user_tools/notes.txt", "is not a tool file directly in"},
      {"src/tools/user_tools/Missing.py", "Tool file src/tools/user_tools/Missing.py not found"},
  };
  for (const auto& c : cases) {
    auto r = call_sync(*p, "ToolDeletor", {{"name", "x"}, {"file_path", c.path}});
    EXPECT_FALSE(r.ok) << c.path;
    EXPECT_NE(r.message.find(c.words), std::string::npos) << c.path << ": " << r.message;
  }
  EXPECT_EQ(host.read("victim.py"), "precious");
  EXPECT_TRUE(has_tool(*p, "WordCount"));

  // A symlink in the area is removed itself, never its target.
  ASSERT_EQ(symlink(victim.c_str(), dir.file("user_tools/Link.py").c_str()), 0);
  EXPECT_TRUE(call_sync(*p, "ToolDeletor", {{"name", "Link"}, {"file_path", "src/tools/user_tools/Link.py"}}).ok);
  EXPECT_EQ(host.read("victim.py"), "precious");

  ASSERT_TRUE(create(*p, "CurrentTimeTool", kCurrentTimeTool).ok);
  auto del = call_sync(*p, "ToolDeletor",
                       {{"name", "CurrentTimeTool"}, {"file_path", "src/tools/user_tools/CurrentTimeTool.py"}});
  ASSERT_TRUE(del.ok) << del.message;
  EXPECT_EQ(del.message, "Tool deleted successfully");
  EXPECT_FALSE(has_tool(*p, "CurrentTimeTool"));
  EXPECT_FALSE(fs::exists(dir.file("user_tools/CurrentTimeTool.py")));
  EXPECT_EQ(call_sync(*p, "CurrentTimeTool", json::object()).message, "Tool CurrentTimeTool not found");
}

TEST_F(UserToolsTest, SwitchesRefuseWithTheHashiruTexts) {
  auto p = make();
  switches->tool_creation = false;
  auto r = create(*p, "CurrentTimeTool", kCurrentTimeTool);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, company::texts::kToolCreationDisabled);
  EXPECT_FALSE(fs::exists(dir.file("user_tools/CurrentTimeTool.py")));
  switches->tool_creation = true;
  ASSERT_TRUE(create(*p, "CurrentTimeTool", kCurrentTimeTool).ok);
  switches->tool_invocation = false;
  EXPECT_EQ(call_sync(*p, "CurrentTimeTool", json::object()).message, company::texts::kToolInvocationDisabled);
}

TEST_F(UserToolsTest, CredentialsReachToolsOnlyThroughAllowedVariables) {
  setenv("KAISHA_TEST_TOOL_TOKEN", "allowed-secret", 1);
  setenv("KAISHA_TEST_OTHER_SECRET", "must-not-leak", 1);
  auto o = options();
  o.env_allow = {"KAISHA_TEST_TOOL_TOKEN"};
  auto p = UserTools::create(o);
  ASSERT_TRUE(p.ok());
  const char* code = R"(import os
__all__ = ['EnvProbe']
class EnvProbe:
    dependencies = ['os']
    inputSchema = {'name': 'EnvProbe', 'description': 'd', 'parameters': {'type': 'object', 'properties': {}}}
    def run(self, **kw):
        return {'status': 'success', 'message': 'ok', 'output': {
            'token': os.environ.get('KAISHA_TEST_TOOL_TOKEN'), 'other': os.environ.get('KAISHA_TEST_OTHER_SECRET')}}
)";
  ASSERT_TRUE(create(**p, "EnvProbe", code).ok);
  auto r = call_sync(**p, "EnvProbe", json::object());
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["token"], "allowed-secret");
  EXPECT_TRUE(r.output["other"].is_null());
}

TEST_F(UserToolsTest, NetworkOnlyWhenAllowed) {
  http::testing::TestServer server;
  server.server.Get("/weather",
                    [](const httplib::Request&, httplib::Response& res) { res.set_content("sunny", "text/plain"); });
  server.start();
  const std::string code = R"(import urllib.request
__all__ = ['Fetch']
class Fetch:
    dependencies = ['urllib']
    inputSchema = {'name': 'Fetch', 'description': 'd', 'parameters': {'type': 'object', 'properties': {'url': {'type': 'string'}}}}
    def run(self, url):
        return {'status': 'success', 'message': 'ok', 'output': urllib.request.urlopen(url, timeout=3).read().decode()}
)";
  for (bool network : {false, true}) {
    TempDir d;
    auto o = options();
    o.user_dir = d.file("tools");
    o.network = network;
    auto p = UserTools::create(o);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(create(**p, "Fetch", code).ok) << network;  // loading never needs the network
    auto r = call_sync(**p, "Fetch", {{"url", server.url("/weather")}});
    if (network) {
      ASSERT_TRUE(r.ok) << r.message << " " << r.output;
      EXPECT_EQ(r.output, "sunny");
    } else {
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.output.get<std::string>().find("URLError"), std::string::npos) << r.output;
    }
  }
}

TEST_F(UserToolsTest, AToolThatRaisesFailsToRunWithItsError) {
  auto p = make();
  const char* code = R"(__all__ = ['Raiser']
class Raiser:
    inputSchema = {'name': 'Raiser', 'description': 'd', 'parameters': {'type': 'object', 'properties': {}}}
    def run(self, **kw):
        raise ValueError('bad day')
)";
  ASSERT_TRUE(create(*p, "Raiser", code).ok);
  auto r = call_sync(*p, "Raiser", json::object());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "Tool `Raiser` failed to run.");
  EXPECT_NE(r.output.get<std::string>().find("ValueError: bad day"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kaisha::tools
