// MCP tools/call round trip over Streamable HTTP on loopback: p50/p90/p99
// latency with one client and with 32 concurrent clients, and requests/s at
// 32, against a raw baseline measured in the same run: the same HttpServer
// with a route that answers a fixed JSON-RPC result of the same size without
// parsing anything. The difference is what MCP costs (kaisha's client:
// request ids, timers, SSE parsing; kaisha's server: session and version
// checks, JSON-RPC dispatch, the SSE answer, the tool's JSON).
//
// The tool is the conformance fixture's test_simple_text (a fixed text), so
// the figures are the protocol's. Rows:
//   raw            POST /raw through HttpClient (keep-alive), fixed body
//   mcp json       POST /mcp tools/call with Accept: application/json only
//                  (the server answers one JSON object), one session
//   mcp client     McpClient::call_tool: what kaisha's MCP tools pay (the
//                  client accepts SSE, so the server answers with a stream)
// Closed loop: each of the N clients sends its next request when its
// previous answer arrived; the 32-client mcp client row uses 32 sessions.
//
// The rows run in ROUNDS rounds, alternating (raw, mcp json, mcp client, then
// the 32-client rows), and each figure is the median of its rounds, so a
// burst of load on the machine lands on every arm alike.
//
// Usage: bench_mcp_overhead [requests per 32-client row, default 4000] [ROUNDS, default 3]
//                           [REVISION the mcp client rows speak: "" negotiates (2026-07-28), or 2025-11-25]
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "bench/closed_loop.hpp"
#include "protocols/mcp/conformance/conformance_fixture.hpp"
#include "protocols/mcp/client/mcp_client.hpp"
#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/server/mcp_http_transport.hpp"
#include "runtime/http/http_client.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

using namespace kaisha;
using Clock = std::chrono::steady_clock;

namespace {

using bench::Figures;
using bench::Send;

Figures run(const Send& send, int clients, int total) { return bench::closed_loop(send, clients, total); }

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

std::shared_ptr<mcp::McpClient> open_client(http::HttpClient& http, const std::string& url,
                                            const std::string& revision) {
  mcp::McpClientOptions o;
  o.protocol_version = revision;
  auto c = mcp::McpClient::create(std::make_unique<mcp::McpHttpClientTransport>(http, url), http, o);
  std::promise<Status> p;
  auto f = p.get_future();
  c->connect([&p](Status s) { p.set_value(std::move(s)); });
  Status s = f.get();
  if (!s.ok()) {
    std::fprintf(stderr, "bench_mcp_overhead: %s\n", s.error().message.c_str());
    std::exit(1);
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const int total = argc > 1 ? std::max(100, std::atoi(argv[1])) : 4000;
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  const std::string revision = argc > 3 ? argv[3] : "";

  auto fixture = mcp::ConformanceFixture::load();
  if (!fixture.ok()) {
    std::fprintf(stderr, "bench_mcp_overhead: %s\n", fixture.error().message.c_str());
    return 1;
  }
  mcp::McpServer mcp_server(**fixture);
  protocols::HttpServerOptions so;
  protocols::HttpServer server(so);
  // Every session of the bench comes from 127.0.0.1: 32 clients, the bare-POST
  // row's session and the warm-up's, above the default per-client limit.
  mcp::McpHttpOptions mo;
  mo.max_sessions_per_client = 128;
  mcp::McpHttpTransport transport(mcp_server, server, mo);
  // The baseline: the tool's JSON-RPC answer, fixed, nothing parsed.
  const std::string fixed =
      jsonrpc::make_result(
          2, json{{"content",
                   json::array({json{{"type", "text"}, {"text", "This is a simple text response for testing."}}})}})
          .dump();
  server.route("POST", "/raw", [fixed](const protocols::HttpRequest&, protocols::HttpResponse& res) {
    res.status = 200;
    res.body = fixed;
  });
  if (auto p = server.start(); !p.ok()) {
    std::fprintf(stderr, "bench_mcp_overhead: %s\n", p.error().message.c_str());
    return 1;
  }
  http::HttpClient http;
  const std::string url = server.base_url() + "/mcp", raw_url = server.base_url() + "/raw";
  const json call{{"jsonrpc", "2.0"},
                  {"id", 2},
                  {"method", "tools/call"},
                  {"params", {{"name", "test_simple_text"}, {"arguments", json::object()}}}};
  const std::string body = call.dump();

  // One 2025-11-25 session for the bare-POST row (that revision wants one,
  // and the row's headers name it).
  auto session_client = std::make_unique<mcp::McpHttpClientTransport>(http, url);
  auto* session_transport = session_client.get();
  mcp::McpClientOptions legacy;
  legacy.protocol_version = "2025-11-25";
  auto json_session = mcp::McpClient::create(std::move(session_client), http, legacy);
  {
    std::promise<Status> p;
    auto f = p.get_future();
    json_session->connect([&p](Status s) { p.set_value(std::move(s)); });
    if (Status s = f.get(); !s.ok()) return std::fprintf(stderr, "%s\n", s.error().message.c_str()), 1;
  }
  const std::string sid = session_transport->session_id();

  auto post = [&http, body](std::string target, std::vector<std::pair<std::string, std::string>> headers) -> Send {
    return [&http, body, target, headers](int, std::function<void(bool)> done) {
      http::HttpRequestSpec req;
      req.url = target;
      req.headers = headers;
      req.body = body;
      http::HttpCallbacks cb;
      cb.on_done = [done](http::HttpResult r) {
        done(r.ok() && r.body.find("This is a simple text response") != std::string::npos);
      };
      http.submit(std::move(req), http::HttpOptions{}, std::move(cb));
    };
  };
  const Send raw = post(raw_url, {{"Content-Type", "application/json"}});
  const Send mcp_json = post(url, {{"Content-Type", "application/json"},
                                   {"Accept", "application/json"},
                                   {"Mcp-Session-Id", sid},
                                   {"MCP-Protocol-Version", "2025-11-25"}});
  std::vector<std::shared_ptr<mcp::McpClient>> clients;
  for (int i = 0; i < 32; ++i) clients.push_back(open_client(http, url, revision));
  const Send mcp_client = [&clients](int slot, std::function<void(bool)> done) {
    clients[static_cast<size_t>(slot)]->call_tool("test_simple_text", json::object(), [done](Result<json> r) {
      done(r.ok() && r->dump().find("This is a simple text response") != std::string::npos);
    });
  };

  std::printf(
      "MCP tools/call round trip on loopback (Streamable HTTP), %d requests per 32-client row, "
      "median of %d alternating rounds, mcp client speaking %s, load average %s\n",
      total, rounds, clients.front()->protocol_version().c_str(), load_average().c_str());
  run(raw, 32, 500);  // warm-up: connections, allocator, sessions
  run(mcp_json, 32, 500);
  run(mcp_client, 32, 500);
  std::printf("%-26s %8s %8s %8s %10s %6s\n", "", "p50 us", "p90 us", "p99 us", "req/s", "errors");
  struct Row {
    const char* name;
    const Send* send;
    int clients;
  } rows[] = {
      {"raw 1 client", &raw, 1},    {"mcp json 1 client", &mcp_json, 1},    {"mcp client 1 client", &mcp_client, 1},
      {"raw 32 clients", &raw, 32}, {"mcp json 32 clients", &mcp_json, 32}, {"mcp client 32 clients", &mcp_client, 32}};
  std::vector<Figures> seen[6];
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 6; ++i)
      seen[i].push_back(run(*rows[i].send, rows[i].clients, rows[i].clients == 1 ? total / 4 : total));
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  Figures f[6];
  for (int i = 0; i < 6; ++i) {
    auto of = [&](double Figures::*field) {
      std::vector<double> v;
      for (const auto& x : seen[i]) v.push_back(x.*field);
      return median(v);
    };
    f[i].p50_us = of(&Figures::p50_us);
    f[i].p90_us = of(&Figures::p90_us);
    f[i].p99_us = of(&Figures::p99_us);
    f[i].rps = of(&Figures::rps);
    for (const auto& x : seen[i]) f[i].errors += x.errors;
    std::printf("%-26s %8.0f %8.0f %8.0f %10.0f %6d\n", rows[i].name, f[i].p50_us, f[i].p90_us, f[i].p99_us, f[i].rps,
                f[i].errors);
  }
  std::printf("mcp client overhead over raw, 1 client p50: +%.0f us (%.2fx); 32 clients: %.2fx the raw req/s\n",
              f[2].p50_us - f[0].p50_us, f[2].p50_us / f[0].p50_us, f[5].rps / f[3].rps);
  std::printf("in-process AskAgent overhead for comparison: bench/README.md section 1 (bench_ask_overhead)\n");
  for (auto& c : clients) c->close();
  json_session->close();
  server.stop();
  return 0;
}
