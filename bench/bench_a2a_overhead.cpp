// A2A SendMessage round trip on loopback: p50/p90/p99 latency with one
// client and with 32 concurrent clients, and requests/s at 32, against a raw
// baseline measured in the same run: the same HttpServer with a route that
// answers a fixed JSON-RPC result of the same size without parsing anything.
// The difference is what the A2A layer costs (JSON-RPC parsing and dispatch,
// message reading, the company call, the Task's JSON).
//
// The company answers inside submit() (an in-process stand-in with no
// model), so the figures are the protocol's, not an LLM's. Clients are one
// HttpClient (curl_multi, keep-alive), closed loop: each of the N clients
// sends its next request when its previous answer arrived.
//
// Usage: bench_a2a_overhead [requests per configuration, default 4000]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "bench/closed_loop.hpp"
#include "protocols/a2a/a2a_server.hpp"
#include "protocols/a2a/company_agent.hpp"
#include "runtime/http/http_client.hpp"
#include "tests/protocols/fake_company_service.hpp"

using namespace kaisha;
using Clock = std::chrono::steady_clock;

namespace {

using bench::Figures;

// Closed loop: `clients` requests in flight until `total` have completed.
Figures run(http::HttpClient& http, const std::string& url, const std::string& body, int clients, int total) {
  return bench::closed_loop(
      [&](int, std::function<void(bool)> done) {
        http::HttpRequestSpec req;
        req.url = url;
        req.headers = {{"Content-Type", "application/json"}, {"A2A-Version", "1.0"}};
        req.body = body;
        http::HttpCallbacks cb;
        cb.on_done = [done = std::move(done)](http::HttpResult r) {
          done(r.ok() && r.body.find("\"result\"") != std::string::npos);
        };
        http.submit(std::move(req), http::HttpOptions{}, std::move(cb));
      },
      clients, total);
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  const int total = argc > 1 ? std::max(100, std::atoi(argv[1])) : 4000;

  testing::FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return std::string("an answer of a few words"); };
  protocols::HttpServerOptions so;
  protocols::HttpServer server(so);
  auto service = a2a::mount_a2a(server, company);

  // The baseline: a fixed JSON-RPC result as large as A2A's, no parsing.
  json message{{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", json::array({json{{"text", "Say hello"}}})}};
  const json send{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "SendMessage"}, {"params", {{"message", message}}}};
  company::TaskInfo sample;
  sample.id = "t1";
  sample.input = "Say hello";
  sample.state = company::TaskState::completed;
  sample.answer = "an answer of a few words";
  const std::string fixed =
      jsonrpc::make_result(1,
                           a2a::send_result(a2a::task_json(a2a::company_task(sample, "s-fake"), a2a::WireVersion::v1_0),
                                            a2a::WireVersion::v1_0))
          .dump();
  server.route("POST", "/raw", [fixed](const protocols::HttpRequest&, protocols::HttpResponse& res) {
    res.status = 200;
    res.body = fixed;
  });
  if (auto p = server.start(); !p.ok()) {
    std::fprintf(stderr, "bench_a2a_overhead: %s\n", p.error().message.c_str());
    return 1;
  }
  http::HttpClient http;
  const std::string a2a_url = server.base_url() + "/a2a", raw_url = server.base_url() + "/raw";
  const std::string body = send.dump();

  std::printf("A2A SendMessage round trip on loopback, %d requests per row, load average %s\n", total,
              load_average().c_str());
  run(http, a2a_url, body, 32, 500);  // warm-up: connections, allocator
  run(http, raw_url, body, 32, 500);
  std::printf("%-22s %8s %8s %8s %10s %6s\n", "", "p50 us", "p90 us", "p99 us", "req/s", "errors");
  Figures rows[4];
  const char* names[4] = {"raw 1 client", "a2a 1 client", "raw 32 clients", "a2a 32 clients"};
  rows[0] = run(http, raw_url, body, 1, total / 4);
  rows[1] = run(http, a2a_url, body, 1, total / 4);
  rows[2] = run(http, raw_url, body, 32, total);
  rows[3] = run(http, a2a_url, body, 32, total);
  for (int i = 0; i < 4; ++i)
    std::printf("%-22s %8.0f %8.0f %8.0f %10.0f %6d\n", names[i], rows[i].p50_us, rows[i].p90_us, rows[i].p99_us,
                rows[i].rps, rows[i].errors);
  std::printf("A2A layer, 1 client: +%.0f us p50 over raw (%.2fx)\n", rows[1].p50_us - rows[0].p50_us,
              rows[1].p50_us / std::max(1.0, rows[0].p50_us));
  std::printf("A2A layer, 32 clients: %.0f req/s vs raw %.0f (%.2fx), p50 %.0f vs %.0f us\n", rows[3].rps, rows[2].rps,
              rows[3].rps / std::max(1.0, rows[2].rps), rows[3].p50_us, rows[2].p50_us);
  std::printf("load average after: %s\n", load_average().c_str());
  server.stop();
  return rows[1].errors + rows[3].errors ? 1 : 0;
}
