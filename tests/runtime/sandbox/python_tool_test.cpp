// The Python tool protocol end to end in a real sandbox: a result, a raised
// error, a broken reply and a runaway tool each come back as what they are.
#include "runtime/sandbox/python_tool.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::sandbox {
namespace {

namespace fs = std::filesystem;

struct ToolDir {
  std::string path;
  ToolDir() {
    std::string tmpl = "/tmp/kaisha-tool-XXXXXX";
    if (char* p = mkdtemp(tmpl.data())) path = p;
    chmod(path.c_str(), 0755);
  }
  ~ToolDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& code) const {
    std::string file = path + "/" + name;
    std::ofstream(file) << code;
    return file;
  }
};

SandboxLimits limits() {
  SandboxLimits l;
  l.cpu_seconds = 2;
  l.memory_bytes = 256ll << 20;
  l.max_processes = 16;
  l.wall_timeout_ms = 3000;
  return l;
}

class PythonTool : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KAISHA_DATA_DIR", KAISHA_SOURCE_DIR, 1);
    Status s = sandbox_available();
    if (!s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }
  ToolDir code, ws;
};

TEST_F(PythonTool, ReturnsTheResult) {
  std::string file = code.write("adder.py",
                                "class Adder:\n  def run(self, a, b):\n    print('noise')\n"
                                "    open('note.txt', 'w').write('hi')\n    return {'sum': a + b}\n");
  auto r = run_python_tool(file, "Adder", json{{"a", 2}, {"b", 3}}, ws.path, limits());
  ASSERT_TRUE(r.ok()) << r.error().code << ": " << r.error().message;
  EXPECT_EQ(r.value(), (json{{"sum", 5}}));
  EXPECT_TRUE(fs::exists(ws.path + "/note.txt"));  // ran in the workspace
}

TEST_F(PythonTool, RaisedErrorIsAToolError) {
  std::string file = code.write("bad.py", "class Bad:\n  def run(self):\n    raise ValueError('no way')\n");
  auto r = run_python_tool(file, "Bad", json::object(), ws.path, limits());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tool_error");
  EXPECT_NE(r.error().message.find("ValueError: no way"), std::string::npos) << r.error().message;
}

TEST_F(PythonTool, MissingClassIsAToolError) {
  std::string file = code.write("empty.py", "x = 1\n");
  auto r = run_python_tool(file, "Nope", json::object(), ws.path, limits());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tool_error");
  EXPECT_NE(r.error().message.find("Nope"), std::string::npos) << r.error().message;
}

TEST_F(PythonTool, MalformedOutputIsAProtocolError) {
  std::string file = code.write("liar.py",
                                "import os\nclass Liar:\n  def run(self):\n"
                                "    os.write(1, b'not json\\n')\n    os._exit(0)\n");
  auto r = run_python_tool(file, "Liar", json::object(), ws.path, limits());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tool_protocol");
  EXPECT_NE(r.error().message.find("not json"), std::string::npos) << r.error().message;
}

TEST_F(PythonTool, RunawayToolTimesOut) {
  std::string file = code.write("spin.py", "import time\nclass Spin:\n  def run(self):\n    time.sleep(60)\n");
  SandboxLimits l = limits();
  l.wall_timeout_ms = 500;
  auto r = run_python_tool(file, "Spin", json::object(), ws.path, l);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "timeout");
}

TEST_F(PythonTool, MissingCodeFileIsAnIoError) {
  auto r = run_python_tool(code.path + "/absent.py", "X", json::object(), ws.path, limits());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "io");
}

}  // namespace
}  // namespace kaisha::sandbox
