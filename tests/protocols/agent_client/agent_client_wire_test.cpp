// The Agent Client Protocol's wire: decoding lines and params, building updates.
#include "protocols/agent_client/agent_client_wire.hpp"

#include <gtest/gtest.h>

namespace kaisha::agent_client {
namespace {

json error_of(const Incoming& m) {
  const json* e = std::get_if<json>(&m);
  return e ? *e : json();
}

TEST(AgentClientWire, DecodesRequestsNotificationsAndResponses) {
  auto req = decode_line(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}})");
  ASSERT_TRUE(std::holds_alternative<jsonrpc::Request>(req));
  EXPECT_EQ(std::get<jsonrpc::Request>(req).method, "initialize");
  EXPECT_EQ(std::get<jsonrpc::Request>(req).id, json(0));

  auto note = decode_line(R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}})");
  ASSERT_TRUE(std::holds_alternative<jsonrpc::Request>(note));
  EXPECT_TRUE(std::get<jsonrpc::Request>(note).notification);

  auto resp = decode_line(R"({"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"cancelled"}}})");
  ASSERT_TRUE(std::holds_alternative<jsonrpc::IncomingResponse>(resp));
}

TEST(AgentClientWire, GarbageAndBatchesGetErrorsWithNullId) {
  json e = error_of(decode_line("this is not json"));
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(e["error"]["code"], -32700);
  EXPECT_TRUE(e["id"].is_null());

  e = error_of(decode_line(R"([{"jsonrpc":"2.0","id":1,"method":"initialize"}])"));
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("no batches"), std::string::npos);

  e = error_of(decode_line(R"({"jsonrpc":"1.0","id":1,"method":"x"})"));
  EXPECT_EQ(e["error"]["code"], -32600);

  // Nesting past the limit is refused before it is parsed (as JSON-RPC does for any body).
  std::string deep(200, '[');
  e = error_of(decode_line(deep));
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("deep"), std::string::npos) << e;
}

TEST(AgentClientWire, InitializeReadsVersionAndClientCapabilities) {
  auto p = parse_initialize(json::parse(R"({"protocolVersion":1,
      "clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false},"terminal":true},
      "clientInfo":{"name":"zed","version":"1"}})"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->protocol_version, 1);
  EXPECT_TRUE(p->capabilities.read_text_file);
  EXPECT_FALSE(p->capabilities.write_text_file);
  EXPECT_TRUE(p->capabilities.terminal);
  EXPECT_EQ(p->client_name, "zed");

  // Malformed capabilities fall back to none, as the schema says.
  p = parse_initialize(json::parse(R"({"protocolVersion":7,"clientCapabilities":"all"})"));
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->capabilities.read_text_file);

  auto bad = parse_initialize(json::parse(R"({"protocolVersion":"1"})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("protocolVersion"), std::string::npos);
  EXPECT_FALSE(parse_initialize(json::parse(R"({})")).ok());
}

TEST(AgentClientWire, InitializeResultOffersVersionOneAndLoadSession) {
  json r = initialize_result("1.2.3");
  EXPECT_EQ(r["protocolVersion"], 1);
  EXPECT_EQ(r["agentCapabilities"]["loadSession"], true);
  EXPECT_EQ(r["agentCapabilities"]["promptCapabilities"]["embeddedContext"], true);
  EXPECT_EQ(r["agentCapabilities"]["promptCapabilities"]["image"], false);
  EXPECT_TRUE(r["authMethods"].is_array() && r["authMethods"].empty());
  EXPECT_EQ(r["agentInfo"]["version"], "1.2.3");
}

TEST(AgentClientWire, NewSessionNeedsAnAbsoluteCwdAndConvertsMcpServers) {
  auto p = parse_new_session(json::parse(R"({"cwd":"/work/project","mcpServers":[
      {"name":"fs tools","command":"/usr/bin/mcp-fs","args":["--root","/w"],"env":[{"name":"K","value":"v"}]},
      {"type":"http","name":"web","url":"http://127.0.0.1:9/mcp","headers":[{"name":"X-A","value":"b"}]}]})"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->cwd, "/work/project");
  ASSERT_EQ(p->mcp_servers.size(), 2u);
  EXPECT_EQ(p->mcp_servers[0].name, "fs_tools");
  EXPECT_EQ(p->mcp_servers[0].tool_prefix, "fs_tools__");
  EXPECT_EQ(p->mcp_servers[0].command, "/usr/bin/mcp-fs");
  EXPECT_EQ(p->mcp_servers[0].args, (std::vector<std::string>{"--root", "/w"}));
  EXPECT_EQ(p->mcp_servers[0].env.at("K"), "v");
  EXPECT_EQ(p->mcp_servers[1].url, "http://127.0.0.1:9/mcp");
  EXPECT_EQ(p->mcp_servers[1].headers.at("X-A"), "b");

  auto rel = parse_new_session(json::parse(R"({"cwd":"project","mcpServers":[]})"));
  ASSERT_FALSE(rel.ok());
  EXPECT_EQ(rel.error().code, "invalid_params");
  EXPECT_NE(rel.error().message.find("absolute"), std::string::npos);
  auto sse = parse_new_session(json::parse(R"({"cwd":"/w","mcpServers":[{"type":"sse","name":"a","url":"u"}]})"));
  ASSERT_FALSE(sse.ok());
  EXPECT_NE(sse.error().message.find("mcpServers[0]"), std::string::npos);

  auto load = parse_load_session(json::parse(R"({"cwd":"/w","mcpServers":[]})"));
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error().message.find("sessionId"), std::string::npos);
}

TEST(AgentClientWire, PromptJoinsTextResourcesAndLinks) {
  auto p = parse_prompt(json::parse(R"({"sessionId":"s1","prompt":[
      {"type":"text","text":"Fix the bug in"},
      {"type":"resource_link","name":"main.cpp","uri":"file:///w/main.cpp"},
      {"type":"resource","resource":{"uri":"file:///w/notes.md","text":"line one","mimeType":"text/markdown"}}]})"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->session_id, "s1");
  EXPECT_EQ(p->text,
            "Fix the bug in\n\n[resource main.cpp: file:///w/main.cpp]\n\n[resource file:///w/notes.md]\nline "
            "one\n[end of file:///w/notes.md]");

  auto image = parse_prompt(json::parse(R"({"sessionId":"s","prompt":[{"type":"image","data":"x","mimeType":"i"}]})"));
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.error().message.find("prompt[0]"), std::string::npos);
  auto blob = parse_prompt(
      json::parse(R"({"sessionId":"s","prompt":[{"type":"resource","resource":{"uri":"u","blob":"AA=="}}]})"));
  ASSERT_FALSE(blob.ok());
  EXPECT_NE(blob.error().message.find("blob"), std::string::npos);
  EXPECT_FALSE(parse_prompt(json::parse(R"({"sessionId":"s","prompt":[]})")).ok());
  EXPECT_FALSE(parse_prompt(json::parse(R"({"prompt":[{"type":"text","text":"x"}]})")).ok());
}

TEST(AgentClientWire, PermissionOutcomeIsAllowedOnlyForTheAllowOptions) {
  EXPECT_EQ(parse_permission_outcome(json::parse(R"({"outcome":{"outcome":"selected","optionId":"allow"}})")),
            PermissionAnswer::allowed);
  EXPECT_EQ(parse_permission_outcome(json::parse(R"({"outcome":{"outcome":"selected","optionId":"allow-always"}})")),
            PermissionAnswer::allowed_always);
  EXPECT_EQ(parse_permission_outcome(json::parse(R"({"outcome":{"outcome":"selected","optionId":"reject"}})")),
            PermissionAnswer::denied);
  EXPECT_EQ(parse_permission_outcome(json::parse(R"({"outcome":{"outcome":"selected","optionId":"other"}})")),
            PermissionAnswer::denied);
  EXPECT_EQ(parse_permission_outcome(json::parse(R"({"outcome":{"outcome":"cancelled"}})")),
            PermissionAnswer::cancelled);
  EXPECT_EQ(parse_permission_outcome(json("garbage")), PermissionAnswer::denied);

  json req = permission_request("s1", "tool-3", "WriteFile", json{{"file_path", "a.txt"}});
  EXPECT_EQ(req["toolCall"]["toolCallId"], "tool-3");
  EXPECT_EQ(req["toolCall"]["kind"], "edit");
  ASSERT_EQ(req["options"].size(), 3u);
  EXPECT_EQ(req["options"][0]["kind"], "allow_once");
  EXPECT_EQ(req["options"][1]["kind"], "allow_always");
  EXPECT_EQ(req["options"][1]["optionId"], kAllowAlwaysOption);
  EXPECT_EQ(req["options"][2]["kind"], "reject_once");
}

TEST(AgentClientWire, ToolKindsCoverThePyramidsAndHivasTools) {
  EXPECT_EQ(tool_kind("file_read"), "read");
  EXPECT_EQ(tool_kind("file_write"), "edit");
  EXPECT_EQ(tool_kind("file_move"), "move");
  EXPECT_EQ(tool_kind("execute_shell"), "execute");
  EXPECT_EQ(tool_kind("web_search"), "search");
  EXPECT_EQ(tool_kind("hiva.agent_tool"), "execute");
  EXPECT_EQ(tool_kind("probe__echo"), "other");
  json u = usage_update(1234, 32768, 0.5);
  EXPECT_EQ(u, json::parse(R"({"sessionUpdate":"usage_update","used":1234,"size":32768,
                                "cost":{"amount":0.5,"currency":"USD"}})"));
  EXPECT_EQ(usage_update(-1, 10, 0)["used"], 0);
}

TEST(AgentClientWire, StopReasonsAndCommandsUseTheProtocolsNames) {
  EXPECT_STREQ(to_string(StopReason::end_turn), "end_turn");
  EXPECT_STREQ(to_string(StopReason::cancelled), "cancelled");
  EXPECT_STREQ(to_string(StopReason::refusal), "refusal");
  EXPECT_STREQ(to_string(StopReason::max_tokens), "max_tokens");
  json c = available_commands();
  EXPECT_EQ(c["sessionUpdate"], "available_commands_update");
  ASSERT_EQ(c["availableCommands"].size(), 2u);
  EXPECT_EQ(c["availableCommands"][1]["name"], "raise");
  EXPECT_TRUE(c["availableCommands"][1]["description"].is_string());
}

}  // namespace
}  // namespace kaisha::agent_client
