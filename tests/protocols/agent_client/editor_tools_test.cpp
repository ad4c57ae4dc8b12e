// EditorTools: permission before writes and code runs, the editor's files,
// and paths kept inside the session's working directory.
#include "protocols/agent_client/editor_tools.hpp"

#include <gtest/gtest.h>

namespace kaisha::agent_client {
namespace {

// A tool source that records the calls that reached it.
class RecordingTools : public company::ToolSource {
 public:
  std::string origin() const override { return "builtin"; }
  std::vector<llm::ToolSpec> specs() const override { return {}; }
  void call(const std::string& name, const json&, const company::ToolCallContext&,
            std::function<void(company::ToolResult)> done) override {
    ran.push_back(name);
    done(company::ToolResult::success("ran " + name));
  }
  std::vector<std::string> ran;
};

// An editor that answers permission with `allow` and serves files from memory.
class FakeEditor : public EditorBridge {
 public:
  bool allow = true;
  bool has_fs = false;
  std::vector<std::string> asked;
  std::vector<json> client_calls;
  void ask_permission(const company::ToolCallContext&, const std::string& tool, const json&,
                      std::function<void(bool, std::string)> done) override {
    asked.push_back(tool);
    done(allow, allow ? "" : "no");
  }
  std::string cwd(const std::string&) override { return "/w"; }
  bool client_reads(const std::string&) override { return has_fs; }
  bool client_writes(const std::string&) override { return has_fs; }
  void call_client(const std::string& method, json params, std::function<void(Result<json>)> done) override {
    params["method"] = method;
    client_calls.push_back(params);
    done(method == "fs/read_text_file" ? json{{"content", "buffer text"}} : json::object());
  }
};

company::ToolResult call(company::ToolSource& s, const std::string& name, const json& args) {
  company::ToolResult out;
  s.call(name, args, company::ToolCallContext{"s1", "t1", "CEO", "", ""}, [&](company::ToolResult r) { out = r; });
  return out;
}

TEST(EditorTools, PathsStayInsideTheWorkingDirectory) {
  EXPECT_EQ(*path_inside("/w/p", "src/a.txt"), "/w/p/src/a.txt");
  EXPECT_EQ(*path_inside("/w/p", "/w/p/b.txt"), "/w/p/b.txt");
  EXPECT_EQ(*path_inside("/w/p/", "./c/../d.txt"), "/w/p/d.txt");
  EXPECT_FALSE(path_inside("/w/p", "../q/secret").ok());
  EXPECT_FALSE(path_inside("/w/p", "/etc/passwd").ok());
  EXPECT_FALSE(path_inside("/w/p", "").ok());
  EXPECT_TRUE(needs_permission("builtin", "WriteFile"));
  EXPECT_TRUE(needs_permission("builtin", "PythonSandboxTool"));
  EXPECT_TRUE(needs_permission("user", "MyCreatedTool"));
  EXPECT_FALSE(needs_permission("builtin", "ReadFile"));
}

TEST(EditorTools, WritesAndCodeRunsAskFirstAndARefusalDoesNotRun) {
  auto inner = std::make_shared<RecordingTools>();
  auto editor = std::make_shared<FakeEditor>();
  auto tools = wrap_for_editor(inner, editor);
  EXPECT_TRUE(call(*tools, "ReadFile", json{{"file_path", "a"}}).ok);
  EXPECT_TRUE(call(*tools, "WriteFile", json{{"file_path", "a"}, {"content", "x"}}).ok);
  editor->allow = false;
  company::ToolResult refused = call(*tools, "PythonSandboxTool", json{{"code", "1"}});
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.message.find("refused permission"), std::string::npos) << refused.message;
  EXPECT_EQ(editor->asked, (std::vector<std::string>{"WriteFile", "PythonSandboxTool"}));
  EXPECT_EQ(inner->ran, (std::vector<std::string>{"ReadFile", "WriteFile"}));
}

TEST(EditorTools, FileToolsGoThroughTheEditorWhenItOffersItsFiles) {
  auto inner = std::make_shared<RecordingTools>();
  auto editor = std::make_shared<FakeEditor>();
  editor->has_fs = true;
  auto tools = wrap_for_editor(inner, editor);
  company::ToolResult read = call(*tools, "ReadFile", json{{"file_path", "src/a.txt"}});
  ASSERT_TRUE(read.ok) << read.message;
  EXPECT_EQ(read.output["content"], "buffer text");
  EXPECT_TRUE(call(*tools, "WriteFile", json{{"file_path", "b.txt"}, {"content", "new"}}).ok);
  EXPECT_FALSE(call(*tools, "WriteFile", json{{"file_path", "../outside"}, {"content", "x"}}).ok);
  EXPECT_TRUE(call(*tools, "ListFiles", json{{"directory", "."}}).ok);  // no such method: kaisha's own layer
  ASSERT_EQ(editor->client_calls.size(), 2u);
  EXPECT_EQ(editor->client_calls[0]["method"], "fs/read_text_file");
  EXPECT_EQ(editor->client_calls[0]["path"], "/w/src/a.txt");
  EXPECT_EQ(editor->client_calls[1]["method"], "fs/write_text_file");
  EXPECT_EQ(editor->client_calls[1]["content"], "new");
  EXPECT_EQ(inner->ran, (std::vector<std::string>{"ListFiles"}));
}

}  // namespace
}  // namespace kaisha::agent_client
