// MCP servers' tools through the real binary: `kaisha run` with an
// mcp_servers: entry starts the scripted stdio server (mcp_test_server), the
// CEO is offered its prefixed tools with their schemas and calls one inside
// a task; an employee granted "mcp:<server>" calls one too; a server that
// dies mid-task gives the model a clear error and the task still ends; a
// bad mcp_servers entry is refused with file:line:key before any work.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

class McpToolsTest : public E2eTest {
 protected:
  std::string config(const std::string& employee_yaml = "") {
    ConfigOptions o;
    o.extra = std::string("mcp_servers:\n  - name: t\n    command: ") + MCP_TEST_SERVER +
              "\n    restart_base_ms: 60000\n    restart_max_ms: 60000\n    stderr_log: " + dir_.file("t.log") + "\n";
    std::string y = config_yaml(o);
    if (!employee_yaml.empty()) {
      const std::string plain = "employee:\n  max_output_tokens: 1024\n";
      y.replace(y.find(plain), plain.size(), plain + employee_yaml);
    }
    return dir_.write("config.yaml", y);
  }
};

TEST_F(McpToolsTest, TheCeoCallsAnMcpToolInATaskWithItsSchemaChecked) {
  start_mock(R"(rules:
  - name: ceo-calls-echo-badly
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls: [ { name: t__echo, arguments: { text: 5 } } ]
  - name: ceo-calls-echo
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls: [ { name: t__echo, arguments: { text: "from the CEO" } } ]
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "Final: {{last_tool}}" }
)");
  RunResult r = run_json(config(), "use the MCP tool");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string answer = r.result().value("answer", "");
  EXPECT_NE(answer.find("echo: from the CEO"), std::string::npos) << answer;
  // The server's input schema reached the registry: a number for "text" was refused before the server saw it.
  auto reqs = requests_for("ceo-model");
  ASSERT_GE(reqs.size(), 2u);
  const std::string refused = reqs[1].value("last_message", "");
  EXPECT_NE(refused.find("error"), std::string::npos) << refused;
  EXPECT_NE(refused.find("text"), std::string::npos) << refused;
}

TEST_F(McpToolsTest, AGrantedEmployeeCallsAnMcpTool) {
  start_mock(R"(rules:
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: Worker, base_model: llama3.2, system_prompt: "Use your tools.", description: "works" } }
  - name: ceo-asks
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls: [ { name: AskAgent, arguments: { agent_name: Worker, prompt: "echo something" } } ]
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "Final: {{last_tool}}" }
  - name: worker-calls-mcp
    match: { model: llama3.2, turn: 0, has_tools: true }
    reply:
      tool_calls: [ { name: t__echo, arguments: { text: "from the worker" } } ]
  - name: worker-answers
    match: { model: llama3.2, last_tool_name: t__echo }
    reply: { text: "Worker got {{last_tool}}" }
)");
  RunResult r = run_json(config("  tools:\n    agents:\n      Worker: [\"mcp:t\"]\n"), "delegate");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string answer = r.result().value("answer", "");
  EXPECT_NE(answer.find("Worker got"), std::string::npos) << answer;
  EXPECT_NE(answer.find("echo: from the worker"), std::string::npos) << answer;
}

TEST_F(McpToolsTest, AServerThatDiesMidTaskIsAClearToolErrorAndTheTaskEnds) {
  start_mock(R"(rules:
  - name: ceo-kills-it
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls: [ { name: t__die, arguments: {} } ]
  - name: ceo-tries-again
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls: [ { name: t__echo, arguments: { text: "again" } } ]
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "Final: {{last_tool}}" }
)");
  RunResult r = run_json(config(), "break the server");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string answer = r.result().value("answer", "");
  // restart_base_ms is a minute: the second call meets the restart wait —
  // or, when it comes before the supervisor has seen the exit (a loaded
  // machine), the closed connection. Either says the server is gone.
  EXPECT_TRUE(answer.find("MCP server 't' is not running; restarting (attempt 1") != std::string::npos ||
              answer.find("MCP server 't' (stdio: " MCP_TEST_SERVER ") is not connected") != std::string::npos)
      << answer;
  auto reqs = requests_for("ceo-model");
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_NE(reqs[1].dump().find("exited with status 3"), std::string::npos) << reqs[1].dump();
}

TEST_F(McpToolsTest, ABadServerEntryIsRefusedBeforeAnyWork) {
  start_mock("rules: []\n");
  ConfigOptions o;
  o.extra = "mcp_servers:\n  - name: t\n    url: ftp://x/mcp\n";
  RunResult r = run_json(write_config(o), "anything");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("mcp_servers[0].url: expected an http:// or https:// URL"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kaisha::e2e
