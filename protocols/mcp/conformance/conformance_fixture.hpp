// ConformanceFixture: the test tools, resources and prompts that the
// official MCP conformance suite's server scenarios call by name (served by
// `kaisha serve --fixture conformance`). The contents live in
// data/mcp/conformance_fixture.json; what a tool does besides returning its
// content is its "behaviour":
//
//   (none)       return "result" as given
//   logging      send each "log" line as notifications/message (info), then "result"
//   progress     notifications/progress for each of "steps" of "total", answer the token
//   echo_args    text "text_prefix" + the arguments as JSON
//   sampling     ask the client for sampling/createMessage with the prompt
//   elicitation  ask the client elicitation/create with "request" ({{arg}} filled in)
//   ask          ask the client each of "rounds" in turn, a round being
//                {key: {"method", "params", "optional"?}} (an optional request is
//                left out when the client lacks its capability); "result" gets
//                the answers by key ({{key.content.name}}) and {{answered}}
//                (their keys); "result_if_none" when nothing was asked
//   list_changed tell the clients that the "list" ("tools", "prompts",
//                "resources") changed, return "result"
//   reconnect    close the SSE stream, wait, return "result" (SEP-1699 polling)
//   task         a tool of the tasks extension ("task_support": "optional" or
//                "required"): ask "rounds_before" (multi round-trip, before any
//                task exists), go async (McpCallContext::go_async), wait the
//                argument named by "wait_seconds_arg" in seconds or "delay_ms"
//                (ended early by cancellation), ask "rounds" (in the task:
//                input_required until tasks/update answers), then fail with
//                "error" ({"code", "message"}: the task fails) when given, else
//                return "result" (filled like "ask"'s)
// Asking works in both eras (McpCallContext::ask_client): a legacy client
// gets requests, a modern one an InputRequiredResult per round. A prompt
// with "rounds" asks the same way before its messages are filled.
//
// In "result", "request", resource contents and prompt messages, "{{name}}"
// is replaced by the argument (or template variable) of that name.
#pragma once

#include <string>
#include <vector>

#include "protocols/mcp/server/json_template.hpp"
#include "protocols/mcp/server/mcp_backend.hpp"

namespace kaisha::mcp {

class ConformanceFixture : public McpBackend {
 public:
  // Reads the fixture file (default: data/mcp/conformance_fixture.json).
  static Result<std::unique_ptr<ConformanceFixture>> load(const std::string& path = "");

  json server_info() const override;
  std::vector<jsonrpc::CapabilityDescriptor> tools() override;
  std::optional<jsonrpc::CapabilityDescriptor> find_tool(const std::string& name) override;
  bool answers_at_once(const std::string& name) override;  // tools without a behaviour, and echo_args
  Result<json> call_tool(const std::string& name, const json& arguments, McpCallContext& ctx) override;
  TaskSupport task_support(const std::string& name) override;
  std::vector<json> resources() override;
  std::vector<json> resource_templates() override;
  Result<json> read_resource(const std::string& uri) override;
  std::vector<json> prompts() override;
  Result<json> get_prompt(const std::string& name, const json& arguments, McpCallContext& ctx) override;

 private:
  explicit ConformanceFixture(json data) : data_(std::move(data)) {}
  const json* find(const char* list, const char* key, const std::string& value) const;
  Result<json> run_task_tool(const json& tool, const json& arguments, McpCallContext& ctx);

  json data_;
};

}  // namespace kaisha::mcp
