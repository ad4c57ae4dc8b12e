#include "runtime/jsonrpc/descriptor.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kaisha::jsonrpc {
namespace {

std::vector<CapabilityDescriptor> hashiru_ceo_tools() {
  std::ifstream in(std::string(KAISHA_SOURCE_DIR) + "/data/tools/hashiru_ceo_tools.json");
  EXPECT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::vector<CapabilityDescriptor> out;
  for (const auto& t : json::parse(ss.str())) {
    out.push_back(from_tool_spec(llm::ToolSpec{t["name"], t["description"], t["parameters"]}));
  }
  return out;
}

// A descriptor using every field.
CapabilityDescriptor full() {
  CapabilityDescriptor d;
  d.kind = CapabilityKind::agent;
  d.name = "WebResearcher";
  d.title = "Web researcher";
  d.description = "Finds and summarises sources.";
  d.input_schema = json::parse(R"({"type":"object","properties":{"q":{"type":"string"}},"required":["q"]})");
  d.output_schema = json::parse(R"({"type":"object","properties":{"summary":{"type":"string"}}})");
  d.tags = {"research", "web"};
  d.examples = {"Summarise the HASHIRU paper"};
  d.costs = json{{"invoke", 0.002}, {"currency", "USD"}};
  d.annotations = json{{"readOnlyHint", true}};
  d.input_modes = {"text/plain", "application/json"};
  d.output_modes = {"application/json"};
  return d;
}

std::vector<CapabilityDescriptor> samples() {
  auto v = hashiru_ceo_tools();
  v.push_back(full());
  CapabilityDescriptor skill;
  skill.kind = CapabilityKind::skill;
  skill.name = "summarise";
  v.push_back(skill);
  return v;
}

TEST(Descriptor, LoadsTheHashiruCeoTools) {
  auto tools = hashiru_ceo_tools();
  ASSERT_EQ(tools.size(), 6u);
  EXPECT_EQ(tools[0].name, "AgentCreator");
  EXPECT_EQ(tools[0].input_schema["required"].size(), 4u);
}

TEST(Descriptor, McpRoundTripIsLossless) {
  for (const auto& d : samples()) {
    json wire = to_mcp_tool(d);
    EXPECT_TRUE(wire["inputSchema"].is_object());
    auto back = from_mcp_tool(wire);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, d) << wire.dump();
  }
}

TEST(Descriptor, McpToolShape) {
  json t = to_mcp_tool(full());
  EXPECT_EQ(t["name"], "WebResearcher");
  EXPECT_EQ(t["title"], "Web researcher");
  EXPECT_EQ(t["outputSchema"]["type"], "object");
  EXPECT_EQ(t["annotations"]["readOnlyHint"], true);
  EXPECT_EQ(t["_meta"]["io.kaisha/kind"], "agent");
  json plain = to_mcp_tool(hashiru_ceo_tools()[3]);  // GetAgents: no extras
  EXPECT_FALSE(plain.contains("_meta"));
  EXPECT_FALSE(plain.contains("title"));
  // A peer's tool with no inputSchema still gets an object schema.
  auto peer = from_mcp_tool(json{{"name", "echo"}});
  ASSERT_TRUE(peer.ok());
  EXPECT_EQ(peer->input_schema, json({{"type", "object"}}));
}

TEST(Descriptor, A2aSkillCarriesItsFieldsAndDefaultsTheRest) {
  for (const auto& d : samples()) {
    json wire = to_a2a_skill(d);
    EXPECT_TRUE(wire["tags"].is_array());
    auto back = from_a2a_skill(wire, d.kind);
    ASSERT_TRUE(back.ok()) << back.error().message;
    CapabilityDescriptor expected = d;  // what a bare skill cannot carry
    expected.input_schema = json{{"type", "object"}};
    expected.output_schema.reset();
    expected.costs.reset();
    expected.annotations.reset();
    EXPECT_EQ(*back, expected) << wire.dump();
  }
  json s = to_a2a_skill(full());
  EXPECT_EQ(s["id"], "WebResearcher");
  EXPECT_EQ(s["name"], "Web researcher");
  EXPECT_EQ(s["inputModes"], json::array({"text/plain", "application/json"}));
}

TEST(Descriptor, A2aAgentCardRoundTripIsLossless) {
  AgentCardInfo info;
  info.name = "kaisha";
  info.description = "A company of agents";
  info.url = "http://127.0.0.1:41241/a2a/jsonrpc";
  info.version = "0.1.0";
  info.streaming = true;
  auto skills = samples();
  json card = to_a2a_agent_card(info, skills);
  EXPECT_EQ(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
  EXPECT_EQ(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
  EXPECT_EQ(card["supportedInterfaces"][1]["protocolVersion"], "0.3");
  EXPECT_EQ(card["capabilities"]["streaming"], true);
  // A v1.0 card by default: the v1.0 schema allows no v0.3 top-level field.
  for (const char* v03 : {"url", "protocolVersion", "preferredTransport"}) EXPECT_FALSE(card.contains(v03)) << v03;
  info.v03_fields = true;
  json for_v03 = to_a2a_agent_card(info, skills);
  EXPECT_EQ(for_v03["url"], info.url);
  EXPECT_EQ(for_v03["protocolVersion"], "0.3.0");
  EXPECT_EQ(card["defaultInputModes"], json::array({"text/plain"}));
  EXPECT_EQ(card["skills"].size(), skills.size());
  auto back = skills_from_a2a_agent_card(card);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, skills);

  info.v03_interface = false;
  info.v03_fields = false;
  json v1 = to_a2a_agent_card(info, {});
  EXPECT_FALSE(v1.contains("url"));
  EXPECT_EQ(v1["supportedInterfaces"].size(), 1u);
  EXPECT_TRUE(skills_from_a2a_agent_card(v1)->empty());
}

TEST(Descriptor, AcpManifestRoundTripIsLossless) {
  for (const auto& d : samples()) {
    json wire = to_acp_manifest(d);
    EXPECT_FALSE(wire["input_content_types"].empty());
    EXPECT_FALSE(wire["output_content_types"].empty());
    auto back = from_acp_manifest(wire);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, d) << wire.dump();
  }
  json m = to_acp_manifest(hashiru_ceo_tools()[0]);
  EXPECT_EQ(m["name"], "agent-creator");
  EXPECT_EQ(m["input_content_types"], json::array({"application/json"}));
  EXPECT_EQ(to_acp_manifest(full())["metadata"]["tags"], json::array({"research", "web"}));
}

TEST(Descriptor, AcpManifestFromAForeignPeer) {
  auto d = from_acp_manifest(json::parse(R"({"name":"echo","description":"Echoes input",
      "input_content_types":["text/plain"],"output_content_types":["text/plain"],"metadata":{}})"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, CapabilityKind::agent);
  EXPECT_EQ(d->name, "echo");
  EXPECT_EQ(d->input_modes, std::vector<std::string>{"text/plain"});
}

TEST(Descriptor, AcpNamesAreDnsLabels) {
  EXPECT_EQ(acp_agent_name("AgentCreator"), "agent-creator");
  EXPECT_EQ(acp_agent_name("HTTPServer"), "http-server");
  EXPECT_EQ(acp_agent_name("get_budget v2"), "get-budget-v2");
  EXPECT_EQ(acp_agent_name("__"), "agent");
  EXPECT_EQ(acp_agent_name(std::string(100, 'a')).size(), 63u);
}

TEST(Descriptor, ToolSpecRoundTrip) {
  for (const auto& d : hashiru_ceo_tools()) {
    llm::ToolSpec s = to_tool_spec(d);
    EXPECT_EQ(from_tool_spec(s), d);
  }
  // Fields a ToolSpec has no place for come back defaulted.
  CapabilityDescriptor back = from_tool_spec(to_tool_spec(full()));
  EXPECT_EQ(back.kind, CapabilityKind::tool);
  EXPECT_EQ(back.name, "WebResearcher");
  EXPECT_EQ(back.input_schema, full().input_schema);
  EXPECT_TRUE(back.title.empty());
  EXPECT_FALSE(back.output_schema.has_value());
}

TEST(Descriptor, MalformedPeerDescriptionsAreErrorsNotCrashes) {
  EXPECT_EQ(from_mcp_tool(json(3)).error().code, "descriptor");
  EXPECT_NE(from_mcp_tool(json{{"name", ""}}).error().message.find("non-empty string"), std::string::npos);
  EXPECT_NE(from_mcp_tool(json{{"name", "x"}, {"inputSchema", "nope"}}).error().message.find("inputSchema"),
            std::string::npos);
  EXPECT_FALSE(from_mcp_tool(json{{"name", "x"}, {"_meta", {{"io.kaisha/tags", {1}}}}}).ok());
  EXPECT_FALSE(from_a2a_skill(json{{"id", 5}}).ok());
  EXPECT_FALSE(from_a2a_skill(json{{"id", "a"}, {"tags", "x"}}).ok());
  EXPECT_FALSE(from_acp_manifest(json{{"name", "a"}, {"metadata", 1}}).ok());
  EXPECT_FALSE(skills_from_a2a_agent_card(json{{"skills", {1}}}).ok());
  EXPECT_FALSE(
      from_acp_manifest(json::parse(R"({"name":"a","metadata":{"annotations":{"kaisha":{"kind":"robot"}}}})")).ok());
}

}  // namespace
}  // namespace kaisha::jsonrpc
