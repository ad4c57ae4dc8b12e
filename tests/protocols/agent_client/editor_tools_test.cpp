// EditorTools: permission before writes and code runs, the editor's files,
// and paths kept inside the session's working directory.
#include "protocols/agent_client/editor_tools.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <mutex>

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

// An editor that answers permission with `allow`, serves files from memory
// and runs terminals as `terminal_answers` say (a method without one is
// held: answered when terminal/kill comes, as a killed process's would be).
class FakeEditor : public EditorBridge {
 public:
  bool allow = true;
  bool has_fs = false;
  bool has_terminals = false;
  std::map<std::string, json> terminal_answers;
  std::vector<std::string> asked;
  std::vector<std::string> shown;
  std::mutex mu;
  std::vector<json> client_calls;
  std::function<void(Result<json>)> held;
  void ask_permission(const company::ToolCallContext&, const std::string& tool, const json&,
                      std::function<void(bool, std::string)> done) override {
    asked.push_back(tool);
    done(allow, allow ? "" : "no");
  }
  std::string cwd(const std::string&) override { return "/w"; }
  bool client_reads(const std::string&) override { return has_fs; }
  bool client_writes(const std::string&) override { return has_fs; }
  bool client_terminals(const std::string&) override { return has_terminals; }
  void show_terminal(const company::ToolCallContext&, const std::string& tool, const std::string& id) override {
    shown.push_back(tool + ":" + id);
  }
  void call_client(const std::string& method, json params, std::function<void(Result<json>)> done) override {
    std::function<void(Result<json>)> release;
    {
      std::lock_guard<std::mutex> lock(mu);
      params["method"] = method;
      client_calls.push_back(params);
      if (method.rfind("terminal/", 0) == 0 && !terminal_answers.count(method)) {
        held = std::move(done);
        return;
      }
      if (method == "terminal/kill") release = std::move(held);
    }
    if (release) release(json{{"exitCode", nullptr}, {"signal", "SIGKILL"}});
    if (method.rfind("terminal/", 0) == 0) return done(terminal_answers.at(method));
    done(method == "fs/read_text_file" ? json{{"content", "buffer text"}} : json::object());
  }
  std::vector<std::string> methods() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::string> out;
    for (const auto& c : client_calls) out.push_back(c["method"]);
    return out;
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
  for (const char* t : {"file_write", "file_move", "dir_create", "execute_code", "execute_shell", "pip_install"})
    EXPECT_TRUE(needs_permission("pyramid", t)) << t;
  EXPECT_FALSE(needs_permission("pyramid", "file_read"));
  EXPECT_FALSE(needs_permission("pyramid", "web_search"));
  EXPECT_TRUE(needs_permission("hiva", "hiva.agent_tool"));
  EXPECT_TRUE(needs_permission("hiva", "hiva.validate_tool"));
  EXPECT_FALSE(needs_permission("hiva", "hiva.embed"));
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

// The code of a run that goes to the editor's terminal: the result, once
// done is called (waits up to 20 s).
company::ToolResult call_and_wait(company::ToolSource& s, const std::string& name, const json& args) {
  auto got = std::make_shared<std::promise<company::ToolResult>>();
  s.call(name, args, company::ToolCallContext{"s1", "t1", "CEO", "", ""},
         [got](company::ToolResult r) { got->set_value(r); });
  auto f = got->get_future();
  if (f.wait_for(std::chrono::seconds(20)) != std::future_status::ready) return company::ToolResult::error("no answer");
  return f.get();
}

TEST(EditorTools, CodeRunsInTheEditorsTerminalWhenItOffersTerminals) {
  auto inner = std::make_shared<RecordingTools>();
  auto editor = std::make_shared<FakeEditor>();
  editor->has_terminals = true;
  editor->terminal_answers = {{"terminal/create", json{{"terminalId", "term-1"}}},
                              {"terminal/wait_for_exit", json{{"exitCode", 3}, {"signal", nullptr}}},
                              {"terminal/output", json{{"output", "42\n日本語 ✓\n"}, {"truncated", false}}},
                              {"terminal/release", json::object()}};
  auto tools = wrap_for_editor(inner, editor);
  company::ToolResult r = call_and_wait(*tools, "PythonSandboxTool", json{{"code", "print(6 * 7)"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output["stdout"], "42\n日本語 ✓\n");
  EXPECT_EQ(r.output["return_code"], 3);
  EXPECT_EQ(r.output["terminal"], true);
  EXPECT_EQ(editor->asked, (std::vector<std::string>{"PythonSandboxTool"})) << "permission first";
  EXPECT_EQ(editor->shown, (std::vector<std::string>{"PythonSandboxTool:term-1"}));
  EXPECT_EQ(editor->methods(), (std::vector<std::string>{"terminal/create", "terminal/wait_for_exit", "terminal/output",
                                                         "terminal/release"}));
  const json create = editor->client_calls[0];
  EXPECT_EQ(create["command"], "python3");
  EXPECT_EQ(create["args"], json::array({"-c", "print(6 * 7)"}));
  EXPECT_EQ(create["cwd"], "/w");
  EXPECT_EQ(create["sessionId"], "s1");
  EXPECT_TRUE(inner->ran.empty()) << "kaisha's own sandbox did not run it";
  EXPECT_FALSE(call_and_wait(*tools, "PythonSandboxTool", json{{"code", 7}}).ok) << "code must be a string";
}

TEST(EditorTools, ACodeRunInTheTerminalPastItsTimeoutIsKilledAndSaysSo) {
  auto inner = std::make_shared<RecordingTools>();
  auto editor = std::make_shared<FakeEditor>();
  editor->has_terminals = true;
  // wait_for_exit is held until the kill.
  editor->terminal_answers = {{"terminal/create", json{{"terminalId", "t9"}}},
                              {"terminal/kill", json::object()},
                              {"terminal/output", json{{"output", "partial"}, {"truncated", true}}},
                              {"terminal/release", json::object()}};
  EditorToolOptions options;
  options.code_timeout_ms = 50;
  auto tools = wrap_for_editor(inner, editor, options);
  company::ToolResult r = call_and_wait(*tools, "PythonSandboxTool", json{{"code", "while True: pass"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("timed out"), std::string::npos) << r.message;
  EXPECT_EQ(r.output["stdout"], "partial");
  EXPECT_EQ(r.output["output_truncated"], true);
  EXPECT_EQ(r.output["timeout_ms"], 50);
  EXPECT_EQ(editor->methods(), (std::vector<std::string>{"terminal/create", "terminal/wait_for_exit", "terminal/kill",
                                                         "terminal/output", "terminal/release"}));
}

TEST(EditorTools, AnEditorThatCannotStartATerminalOrAnswersGarbageGivesAnErrorResult) {
  auto inner = std::make_shared<RecordingTools>();
  auto editor = std::make_shared<FakeEditor>();
  editor->has_terminals = true;
  editor->terminal_answers = {{"terminal/create", json{{"terminalId", 42}}}};
  auto tools = wrap_for_editor(inner, editor);
  company::ToolResult r = call_and_wait(*tools, "PythonSandboxTool", json{{"code", "1"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("no terminalId"), std::string::npos) << r.message;
  // An exit with neither code nor signal, and output that is not UTF-8.
  editor->terminal_answers = {{"terminal/create", json{{"terminalId", "t1"}}},
                              {"terminal/wait_for_exit", json::object()},
                              {"terminal/output", json{{"output", std::string("ok \xff\xfe")}}},
                              {"terminal/release", json::object()}};
  r = call_and_wait(*tools, "PythonSandboxTool", json{{"code", "1"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("stopped by an unknown cause"), std::string::npos) << r.message;
  EXPECT_EQ(r.output["stdout"].get<std::string>().rfind("ok ", 0), 0u);
  EXPECT_TRUE(json(r.output["stdout"]).dump().size() > 0) << "valid UTF-8: it serialises";
  EXPECT_TRUE(inner->ran.empty());
}

TEST(EditorTools, WithoutTerminalsCodeRunsInKaishasOwnSandbox) {
  auto inner = std::make_shared<RecordingTools>();
  auto editor = std::make_shared<FakeEditor>();
  auto tools = wrap_for_editor(inner, editor);
  EXPECT_TRUE(call(*tools, "PythonSandboxTool", json{{"code", "1"}}).ok);
  EXPECT_EQ(inner->ran, (std::vector<std::string>{"PythonSandboxTool"}));
  EXPECT_TRUE(editor->methods().empty());
}

}  // namespace
}  // namespace kaisha::agent_client
