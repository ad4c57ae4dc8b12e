// mcp_client_driver: kaisha's MCP client (protocols/mcp) as a command, for
// the interop tests.
//
// Conformance mode — the @modelcontextprotocol/conformance suite runs
// `mcp_client_driver <server-url>` with MCP_CONFORMANCE_SCENARIO set and
// judges what the server side saw. The client negotiates the revision itself
// (2026-07-28 when the scenario's server speaks it, else 2025-11-25); every
// scenario connects and lists the tools, then:
//   initialize, request-metadata,        nothing more
//   json-schema-ref-no-deref
//   tools_call                           call add_numbers {a, b}
//   sse-retry                            call test_reconnection (the answer comes on a resumed stream)
//   elicitation-sep1034-client-defaults  call test_client_elicitation_defaults, accept the
//                                        elicitation with the schema's defaults
//   sep-2322-client-request-state        call the test_mrtr_* tools; an elicitation they ask for is
//                                        accepted after an unrelated tool call in between
//   http-standard-headers                call every tool, read every resource, get every prompt
//   http-custom-headers                  the tool calls MCP_CONFORMANCE_CONTEXT lists
//   http-invalid-tool-headers            call every tool the client kept
//   json-schema-2020-12-preservation     call json_schema_echo with json_schema_2020_12_tool's schema
//   auth/*                               with OAuth on (tokens in a fresh file under $TMPDIR):
//                                        call test-tool; MCP_CONFORMANCE_CONTEXT's client_id and
//                                        client_secret (or private_key_pem) are a pre-registered client
//                                        (client_credentials for auth/client-credentials-*; the
//                                        JWT bearer grant with valid_jwt for auth/wif-jwt-bearer; the
//                                        idp_* ID token exchange for auth/enterprise-managed-authorization), and
//                                        the client ID metadata document URL is the one the suite expects
// Manual mode:
//   mcp_client_driver (--url URL | --stdio CMD [ARGS...] --) [--list] [--call TOOL JSON]... [--expect TEXT]...
// prints the tool names and each call's ToolResult; exit 1 when a step fails
// or an --expect text is missing from the output.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include "protocols/mcp/client/mcp_client.hpp"
#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/client/mcp_stdio_client_transport.hpp"
#include "protocols/mcp/client/mcp_tool_result.hpp"

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

Result<json> ask(const std::shared_ptr<mcp::McpClient>& c, const std::string& method, const json& params) {
  std::promise<Result<json>> p;
  auto f = p.get_future();
  c->request(method, params, [&p](Result<json> r) { p.set_value(std::move(r)); });
  return wait(f);
}

// Arguments a tool's required properties accept (for tools called blind).
json sample_arguments(const json& schema) {
  json args = json::object();
  const json props = schema.value("properties", json::object());
  for (const auto& name : schema.value("required", json::array())) {
    if (!name.is_string()) continue;
    const std::string type = props.value(name.get<std::string>(), json::object()).value("type", std::string("string"));
    args[name.get<std::string>()] = type == "integer" || type == "number" ? json(1)
                                    : type == "boolean"                   ? json(true)
                                                                          : json("x");
  }
  return args;
}

json conformance_context() {
  const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT");
  json ctx = json::parse(context ? context : "{}", nullptr, false);
  return ctx.is_object() ? ctx : json::object();
}

// OAuth as the auth/* scenarios want it; the token file lives in a fresh
// directory, removed at exit, so no scenario sees another's tokens.
std::shared_ptr<mcp::McpOAuth> conformance_oauth(const std::string& scenario, const std::string& url,
                                                 http::HttpClient& http) {
  static std::string dir;
  std::string tmpl = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/kaisha-oauth.XXXXXX";
  if (!mkdtemp(tmpl.data())) return nullptr;
  dir = tmpl;
  std::atexit([] {
    std::remove((dir + "/tokens.json").c_str());
    rmdir(dir.c_str());
  });
  mcp::OAuthSettings s;
  s.store = std::make_shared<mcp::OAuthTokenStore>(dir + "/tokens.json");
  s.client_metadata_url = "https://conformance-test.local/client-metadata.json";
  s.client_name = "kaisha-conformance-client";
  const json ctx = conformance_context();
  s.client_id = ctx.value("client_id", std::string());
  s.client_secret = ctx.value("client_secret", std::string());
  if (scenario.rfind("auth/client-credentials", 0) == 0) s.grant = mcp::OAuthGrant::client_credentials;
  s.private_key_pem = ctx.value("private_key_pem", std::string());
  s.signing_alg = ctx.value("signing_algorithm", std::string("ES256"));
  if (scenario == "auth/wif-jwt-bearer") {
    s.grant = mcp::OAuthGrant::jwt_bearer;
    s.assertion = ctx.value("valid_jwt", std::string());
  }
  if (scenario == "auth/enterprise-managed-authorization") {
    s.grant = mcp::OAuthGrant::identity_assertion;
    s.assertion = ctx.value("idp_id_token", std::string());
    s.idp_token_endpoint = ctx.value("idp_token_endpoint", std::string());
    s.idp_client_id = ctx.value("idp_client_id", std::string());
  }
  return mcp::McpOAuth::create(http, "conformance", url, s);
}

int run_conformance(const std::string& scenario, const std::string& url, http::HttpClient& http) {
  mcp::McpClientOptions o;
  o.client_name = "kaisha-conformance-client";
  o.capabilities = {{"elicitation", json::object()}};
  o.request_timeout_ms = 30'000;
  mcp::McpHttpClientOptions ho;
  const bool auth = scenario.rfind("auth/", 0) == 0;
  if (auth) ho.oauth = conformance_oauth(scenario, url, http);
  auto c = mcp::McpClient::create(std::make_unique<mcp::McpHttpClientTransport>(http, url, ho), http, o);
  std::weak_ptr<mcp::McpClient> weak = c;
  c->on_request(
      [weak, scenario](const std::string& method, const json& params, std::function<void(Result<json>)> reply) {
        if (method != "elicitation/create")
          return reply(Error{"mcp", "kaisha's conformance client does not handle " + method});
        json accept{{"action", "accept"}, {"content", defaults_of(params)}};
        auto self = weak.lock();
        if (scenario != "sep-2322-client-request-state" || !self) return reply(accept);
        // Another request while this one waits for its input: it must carry
        // none of this one's inputResponses or requestState.
        accept["content"] = {{"confirmed", true}};
        self->call_tool("test_mrtr_unrelated", json::object(), [reply, accept](Result<json>) { reply(accept); });
      });
  if (Status s = connect(c); !s.ok()) return fail(s.error().message);
  std::cout << "connected: " << c->server_info().dump() << " protocol " << c->protocol_version() << "\n";
  auto tools = list(c);
  if (!tools.ok()) return fail(tools.error().message);
  for (const auto& t : *tools) std::cout << "tool: " << t.name << "\n";
  for (const auto& r : c->rejected_tools()) std::cout << "rejected tool: " << r << "\n";

  std::vector<std::pair<std::string, json>> calls;
  if (scenario == "tools_call") {
    calls.push_back({"add_numbers", {{"a", 5}, {"b", 3}}});
  } else if (scenario == "sse-retry") {
    calls.push_back({"test_reconnection", json::object()});
  } else if (scenario == "elicitation-sep1034-client-defaults") {
    calls.push_back({"test_client_elicitation_defaults", json::object()});
  } else if (scenario == "sep-2322-client-request-state") {
    for (const char* t : {"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"})
      calls.push_back({t, json::object()});
  } else if (scenario == "http-standard-headers" || scenario == "http-invalid-tool-headers") {
    for (const auto& t : *tools) calls.push_back({t.name, sample_arguments(t.input_schema)});
  } else if (scenario == "http-custom-headers") {
    for (const auto& tc : conformance_context().value("toolCalls", json::array()))
      calls.push_back({tc.value("name", std::string()), tc.value("arguments", json::object())});
  } else if (auth) {
    calls.push_back({"test-tool", json::object()});
  } else if (scenario == "json-schema-2020-12-preservation") {
    for (const auto& t : *tools)
      if (t.name == "json_schema_2020_12_tool") calls.push_back({"json_schema_echo", {{"schema", t.input_schema}}});
  } else if (scenario != "initialize" && scenario != "request-metadata" && scenario != "json-schema-ref-no-deref") {
    c->close();
    return fail("scenario " + scenario + " is not supported by this driver");
  }
  for (const auto& [tool, args] : calls) {
    auto r = call(c, tool, args);
    if (!r.ok()) return fail(r.error().message);
    std::cout << tool << ": " << mcp::to_tool_result("conformance", tool, *r).to_json().dump() << "\n";
  }
  if (scenario == "http-standard-headers") {
    // Resources and prompts mirror their target (Mcp-Name) too.
    auto resources = ask(c, "resources/list", json::object());
    if (!resources.ok()) return fail(resources.error().message);
    for (const auto& r : resources->value("resources", json::array()))
      if (auto read = ask(c, "resources/read", {{"uri", r.value("uri", "")}}); !read.ok())
        return fail(read.error().message);
    auto prompts = ask(c, "prompts/list", json::object());
    if (!prompts.ok()) return fail(prompts.error().message);
    for (const auto& p : prompts->value("prompts", json::array()))
      if (auto got = ask(c, "prompts/get", {{"name", p.value("name", "")}}); !got.ok())
        return fail(got.error().message);
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
      return fail(
          "usage: mcp_client_driver (--url URL | --stdio CMD [ARGS...] --) [--list] [--call TOOL JSON]... "
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
