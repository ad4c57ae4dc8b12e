// Test helpers for the dialect tests: sample chat values and a JSON view of
// them, so that a failed comparison prints which field differs.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::llm::testing {

inline json to_json(const ChatMessage& m) {
  json calls = json::array();
  for (const auto& c : m.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return {{"role", to_string(m.role)},
          {"content", m.content},
          {"tool_calls", calls},
          {"tool_call_id", m.tool_call_id},
          {"name", m.name}};
}

inline json to_json(const ChatRequest& r) {
  json msgs = json::array();
  for (const auto& m : r.messages) msgs.push_back(to_json(m));
  json tools = json::array();
  for (const auto& t : r.tools)
    tools.push_back({{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}});
  return {{"model", r.model},
          {"messages", msgs},
          {"tools", tools},
          {"temperature", r.temperature ? json(*r.temperature) : json(nullptr)},
          {"max_tokens", r.max_tokens ? json(*r.max_tokens) : json(nullptr)},
          {"stream", r.stream},
          {"seed", r.seed ? json(*r.seed) : json(nullptr)}};
}

inline json to_json(const ChatResponse& r) {
  return {{"model", r.model},
          {"message", to_json(r.message)},
          {"finish_reason", r.finish_reason},
          {"usage", {{"in", r.usage.input_tokens}, {"out", r.usage.output_tokens}, {"estimated", r.usage.estimated}}}};
}

// A conversation that exercises every message kind: system prompt, user,
// assistant tool call, tool result, user again. Ids follow the "call_<n>"
// scheme so that dialects without call ids (Gemini) give them back unchanged.
inline ChatRequest sample_request(bool stream = false) {
  ChatRequest r;
  r.model = "test-model";
  r.messages.push_back({Role::system, "You are the CEO.", {}, "", ""});
  r.messages.push_back({Role::user, "Write a poem about tea \"quoted\" ünïcode", {}, "", ""});
  ChatMessage a;
  a.role = Role::assistant;
  a.tool_calls.push_back({"call_0", "AgentCreator", R"({"agent_name":"Poet","base_model":"mistral"})"});
  r.messages.push_back(a);
  r.messages.push_back({Role::tool, "Agent Poet created; 3 remaining", {}, "call_0", "AgentCreator"});
  r.messages.push_back({Role::user, "Go on", {}, "", ""});
  r.tools.push_back(
      {"AgentCreator", "Creates an agent",
       json::parse(R"({"type":"object","properties":{"agent_name":{"type":"string"}},"required":["agent_name"]})")});
  r.temperature = 0.25;
  r.max_tokens = 512;
  r.stream = stream;
  return r;
}

inline ChatResponse sample_response() {
  ChatResponse r;
  r.model = "test-model";
  r.message.role = Role::assistant;
  r.message.content = "Let me hire a poet for this — ünïcode and \"quotes\" included, a longish text.";
  r.message.tool_calls.push_back({"call_7", "AgentCreator", R"({"agent_name":"Poet","base_model":"mistral"})"});
  r.message.tool_calls.push_back({"call_8", "AskAgent", R"({"agent_name":"Poet","question":"A haiku, please"})"});
  r.usage = {120, 30, false};
  r.finish_reason = "tool_calls";
  return r;
}

// The path part of an absolute URL ("http://h:1/v1/x?y" -> "/v1/x?y").
inline std::string path_of(std::string_view url) {
  auto scheme = url.find("://");
  auto slash = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
  return slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
}

}  // namespace kaisha::llm::testing
