// mcp_client_driver: kaisha's MCP client (protocols/mcp) as a command, for
// the interop tests.
//
// Conformance mode — the @modelcontextprotocol/conformance suite runs
// `mcp_client_driver <server-url>` with MCP_CONFORMANCE_SCENARIO set and
// judges what the server side saw:
//   initialize                           connect, list tools, close
//   tools_call                           connect, call add_numbers {a, b}
//   sse-retry                            connect, call test_reconnection (the answer comes on a resumed stream)
//   elicitation-sep1034-client-defaults  connect, call test_client_elicitation_defaults, accept the
//                                        elicitation with the schema's defaults
// Manual mode:
//   mcp_client_driver (--url URL | --stdio CMD [ARGS...] --) [--list] [--call TOOL JSON]... [--expect TEXT]...
// prints the tool names and each call's ToolResult; exit 1 when a step fails
// or an --expect text is missing from the output.
#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include "protocols/mcp/mcp_client.hpp"
#include "protocols/mcp/mcp_http_client_transport.hpp"
#include "protocols/mcp/mcp_stdio_client_transport.hpp"
#include "protocols/mcp/mcp_tool_result.hpp"

using namespace kaisha;

namespace {

template <class T>
T wait(std::future<T>& f) {
  if (f.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::cerr << "mcp_client_driver: no answer within 60 s\n";
    std::exit(1);
  }
  return f.get();
}

Status connect(const std::shared_ptr<mcp::McpClient>& c) {
  std::promise<Status> p;
  auto f = p.get_future();
  c->connect([&p](Status s) { p.set_value(std::move(s)); });
  return wait(f);
}

Result<std::vector<mcp::McpToolInfo>> list(const std::shared_ptr<mcp::McpClient>& c) {
  std::promise<Result<std::vector<mcp::McpToolInfo>>> p;
  auto f = p.get_future();
  c->list_tools([&p](Result<std::vector<mcp::McpToolInfo>> r) { p.set_value(std::move(r)); });
  return wait(f);
}

Result<json> call(const std::shared_ptr<mcp::McpClient>& c, const std::string& tool, const json& args) {
  std::promise<Result<json>> p;
  auto f = p.get_future();
  c->call_tool(tool, args, [&p](Result<json> r) { p.set_value(std::move(r)); });
  return wait(f);
}

// SEP-1034: an accepted form carries each property's default.
json defaults_of(const json& params) {
  json content = json::object();
  const json schema = params.value("requestedSchema", json::object());
  const json props = schema.value("properties", json::object());
  for (const auto& [k, prop] : props.items())
    if (prop.is_object() && prop.contains("default")) content[k] = prop["default"];
  return content;
}

int fail(const std::string& what) {
  std::cerr << "mcp_client_driver: " << what << "\n";
  return 1;
}

int run_conformance(const std::string& scenario, const std::string& url, http::HttpClient& http) {
  mcp::McpClientOptions o;
  o.client_name = "kaisha-conformance-client";
  o.capabilities = {{"elicitation", json::object()}};
  o.request_timeout_ms = 30'000;
  auto c = mcp::McpClient::create(std::make_unique<mcp::McpHttpClientTransport>(http, url), http, o);
  c->on_request([](const std::string& method, const json& params, std::function<void(Result<json>)> reply) {
    if (method == "elicitation/create") return reply(json{{"action", "accept"}, {"content", defaults_of(params)}});
    reply(Error{"mcp", "kaisha's conformance client does not handle " + method});
  });
  if (Status s = connect(c); !s.ok()) return fail(s.error().message);
  std::cout << "connected: " << c->server_info().dump() << " protocol " << c->protocol_version() << "\n";
  auto tools = list(c);
  if (!tools.ok()) return fail(tools.error().message);
  for (const auto& t : *tools) std::cout << "tool: " << t.name << "\n";
  std::string tool;
  json args = json::object();
  if (scenario == "tools_call") {
    tool = "add_numbers";
    args = {{"a", 5}, {"b", 3}};
  } else if (scenario == "sse-retry") {
    tool = "test_reconnection";
  } else if (scenario == "elicitation-sep1034-client-defaults") {
    tool = "test_client_elicitation_defaults";
  } else if (scenario != "initialize") {
    c->close();
    return fail("scenario " + scenario + " is not supported (no OAuth in kaisha's MCP client)");
  }
  if (!tool.empty()) {
    auto r = call(c, tool, args);
    if (!r.ok()) return fail(r.error().message);
    std::cout << tool << ": " << mcp::to_tool_result("conformance", tool, *r).to_json().dump() << "\n";
  }
  c->close();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  http::HttpClient http;
  const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
  if (scenario && *scenario && argc >= 2) return run_conformance(scenario, argv[argc - 1], http);

  std::unique_ptr<mcp::McpClientTransport> transport;
  bool do_list = false;
  std::vector<std::pair<std::string, json>> calls;
  std::vector<std::string> expects;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--url" && i + 1 < argc) {
      transport = std::make_unique<mcp::McpHttpClientTransport>(http, argv[++i]);
    } else if (a == "--stdio" && i + 1 < argc) {
      mcp::ChildSpec spec;
      spec.command = argv[++i];
      while (i + 1 < argc && std::string(argv[i + 1]) != "--") spec.args.push_back(argv[++i]);
      ++i;  // the "--"
      transport = std::make_unique<mcp::McpStdioClientTransport>(spec);
    } else if (a == "--list") {
      do_list = true;
    } else if (a == "--call" && i + 2 < argc) {
      const std::string tool = argv[++i];
      json args = json::parse(argv[++i], nullptr, false);
      if (args.is_discarded()) return fail("--call " + tool + ": arguments are not JSON");
      calls.push_back({tool, args});
    } else if (a == "--expect" && i + 1 < argc) {
      expects.push_back(argv[++i]);
    } else {
      return fail("usage: mcp_client_driver (--url URL | --stdio CMD [ARGS...] --) [--list] [--call TOOL JSON]... "
                  "[--expect TEXT]...");
    }
  }
  if (!transport) return fail("give --url or --stdio");
  auto c = mcp::McpClient::create(std::move(transport), http);
  if (Status s = connect(c); !s.ok()) return fail(s.error().message);
  std::string out = "connected: " + c->server_info().dump() + " protocol " + c->protocol_version() + "\n";
  if (do_list) {
    auto tools = list(c);
    if (!tools.ok()) return fail(tools.error().message);
    for (const auto& t : *tools) out += "tool: " + t.name + "\n";
  }
  for (const auto& [tool, args] : calls) {
    auto r = call(c, tool, args);
    if (!r.ok()) return fail(r.error().message);
    out += tool + ": " + mcp::to_tool_result("server", tool, *r).to_json().dump() + "\n";
  }
  c->close();
  std::cout << out;
  for (const auto& e : expects)
    if (out.find(e) == std::string::npos) return fail("expected '" + e + "' in the output");
  return 0;
}
