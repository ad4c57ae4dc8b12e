// mcp_test_server: a small, scriptable MCP server over stdio for the client
// tests (a real child process the client starts, kills and restarts). It
// answers one line at a time:
//
//   initialize           protocolVersion from --version (default: the client's)
//   tools/list           two pages (cursor "page2"): echo | die, slow, silent,
//                        garbage, grow, fail, structured, append, put, meta, flaky (+ extra after grow)
//   tools/call echo      {"text"} -> text block (annotated read-only)
//   tools/call meta      -> "meta: " and the request's _meta as JSON
//   tools/call append    {"path", "text", "sleep_ms"}: appends a line to the file, then
//                        waits (annotated not idempotent)
//   tools/call put       {"path", "text", "sleep_ms"}: writes the file, then waits
//                        only if it did not exist before (annotated idempotent)
//   tools/call die       writes "dying on purpose" to stderr, exits 3 (mid-call)
//   tools/call silent    never answers
//   tools/call garbage   a line that is not JSON, then a response with neither result nor error
//   tools/call grow      adds tool "extra", sends notifications/tools/list_changed, answers
//   tools/call fail      isError: true
//   tools/call flaky     {"fail_times"}: isError "temporarily unavailable" for the first
//                        fail_times calls (default 1) of this process, then "flaky: ok
//                        after N failures" (annotated idempotent)
//   tools/call structured  structuredContent {"n": 7}
//   notifications/cancelled  logged to stderr as "cancelled <requestId>"
//
// --silent-before-initialize: a request other than initialize before it gets
// no answer at all (legacy servers that ignore server/discover).
// --modern: a server that speaks only 2026-07-28: server/discover answers,
// initialize is refused (-32601), and
//   tools/call ask_then_silent  an InputRequiredResult (one elicitation), and
//                               the retry carrying the answer is never answered
// --sleep-at-start MS: reads nothing for MS ms first (a slow start).
//
// Usage: mcp_test_server [--version V] [--exit-at-start] [--silent-before-initialize] [--modern]
//                        [--sleep-at-start MS]
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using json = nlohmann::json;

namespace {

void send(const json& j) { std::cout << j.dump() << "\n" << std::flush; }

json tool(const std::string& name, json props = json::object(), json annotations = nullptr) {
  json t = {{"name", name},
            {"description", "test tool " + name},
            {"inputSchema", {{"type", "object"}, {"properties", std::move(props)}}}};
  if (!annotations.is_null()) t["annotations"] = std::move(annotations);
  return t;
}

json text_result(const std::string& t) { return {{"content", json::array({{{"type", "text"}, {"text", t}}})}}; }

}  // namespace

int main(int argc, char** argv) {
  std::string version;
  bool silent_before_initialize = false, modern = false, initialized = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--version" && i + 1 < argc) version = argv[++i];
    if (a == "--silent-before-initialize") silent_before_initialize = true;
    if (a == "--modern") modern = true;
    if (a == "--sleep-at-start" && i + 1 < argc) usleep(static_cast<useconds_t>(std::stoi(argv[++i])) * 1000);
    if (a == "--exit-at-start") {
      std::cerr << "mcp_test_server: refusing to start (--exit-at-start)" << std::endl;
      return 2;
    }
  }
  bool grown = false;
  int flaky_failures = 0;  // calls of flaky answered with an error so far
  std::string line;
  while (std::getline(std::cin, line)) {
    json m = json::parse(line, nullptr, false);
    if (m.is_discarded() || !m.is_object()) continue;
    const std::string method = m.value("method", "");
    const json id = m.contains("id") ? m["id"] : json();
    const json params = m.value("params", json::object());
    if (method == "notifications/cancelled") {
      std::cerr << "cancelled " << params.value("requestId", json()).dump() << std::endl;
      continue;
    }
    if (id.is_null()) continue;  // other notifications, responses
    auto result = [&](json r) { send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(r)}}); };
    if (silent_before_initialize && !initialized && method != "initialize") continue;
    if (modern) {
      if (method == "server/discover") {
        result({{"supportedVersions", {"2026-07-28"}},
                {"capabilities", {{"tools", json::object()}}},
                {"_meta", {{"io.modelcontextprotocol/serverInfo", {{"name", "mcp_test_server"}, {"version", "1"}}}}}});
      } else if (method == "tools/call" && params.value("name", "") == "ask_then_silent") {
        if (!params.contains("inputResponses"))
          result({{"resultType", "input_required"},
                  {"inputRequests", {{"q", {{"method", "elicitation/create"}, {"params", {{"message", "name?"}}}}}}}});
        // the retry is never answered
      } else {
        send({{"jsonrpc", "2.0"},
              {"id", id},
              {"error", {{"code", -32601}, {"message", "Method not found (2026-07-28 only)"}}}});
      }
      continue;
    }
    if (method == "initialize") {
      initialized = true;
      result({{"protocolVersion", version.empty() ? params.value("protocolVersion", "2025-11-25") : version},
              {"capabilities", {{"tools", {{"listChanged", true}}}}},
              {"serverInfo", {{"name", "mcp_test_server"}, {"version", "1"}}}});
    } else if (method == "ping") {
      result(json::object());
    } else if (method == "tools/list") {
      if (!params.contains("cursor")) {
        result({{"tools", json::array({tool("echo", {{"text", {{"type", "string"}}}}, {{"readOnlyHint", true}})})},
                {"nextCursor", "page2"}});
      } else {
        json tools = json::array(
            {tool("die"), tool("slow"), tool("silent"), tool("garbage"), tool("grow"), tool("fail"), tool("structured"),
             tool("append", json::object(), {{"readOnlyHint", false}, {"idempotentHint", false}}),
             tool("put", json::object(), {{"readOnlyHint", false}, {"idempotentHint", true}}), tool("meta"),
             tool("flaky", json::object(), {{"readOnlyHint", true}, {"idempotentHint", true}})});
        if (grown) tools.push_back(tool("extra"));
        result({{"tools", tools}});
      }
    } else if (method == "tools/call") {
      const std::string name = params.value("name", "");
      const json args = params.value("arguments", json::object());
      if (name == "echo") {
        result(text_result("echo: " + args.value("text", std::string())));
      } else if (name == "meta") {
        result(text_result("meta: " + params.value("_meta", json::object()).dump()));
      } else if (name == "die") {
        std::cerr << "dying on purpose" << std::endl;
        _exit(3);
      } else if (name == "silent") {
        // never answers
      } else if (name == "garbage") {
        std::cout << "this is not json\n" << std::flush;
        send({{"jsonrpc", "2.0"}, {"id", id}});
      } else if (name == "grow") {
        grown = true;
        send({{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
        result(text_result("grown"));
      } else if (name == "append" || name == "put") {
        const std::string path = args.value("path", std::string("mcp_test_server.out"));
        const bool existed = access(path.c_str(), F_OK) == 0;
        std::ofstream out(path, name == "append" ? std::ios::app : std::ios::trunc);
        out << args.value("text", std::string()) << "\n";
        out.close();
        if (name == "append" || !existed) usleep(static_cast<useconds_t>(args.value("sleep_ms", 0)) * 1000);
        result(text_result(name == "append" ? "appended" : "written"));
      } else if (name == "fail") {
        json r = text_result("it went wrong");
        r["isError"] = true;
        result(r);
      } else if (name == "flaky") {
        if (flaky_failures < args.value("fail_times", 1)) {
          ++flaky_failures;
          json r = text_result("Service temporarily unavailable, try again");
          r["isError"] = true;
          result(r);
        } else {
          result(text_result("flaky: ok after " + std::to_string(flaky_failures) + " failures"));
        }
      } else if (name == "structured") {
        json r = text_result("{\"n\": 7}");
        r["structuredContent"] = {{"n", 7}};
        result(r);
      } else {
        send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", -32602}, {"message", "Unknown tool: " + name}}}});
      }
    } else {
      send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", -32601}, {"message", "Method not found"}}}});
    }
  }
  return 0;
}
