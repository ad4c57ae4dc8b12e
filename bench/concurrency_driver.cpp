// Concurrency driver: 1,000 AskAgent calls in flight at once, through the real
// path, against the real mock LLM HTTP server answering each chat after
// 500 ms — versus 1,000 plain concurrent HTTP requests to the same server in
// the same run.
//
//   kaisha   CompanyRuntime with the real LlmClient (libcurl; the
//            provider's max_concurrency raised to 1100), a few employees
//            hired with call_tool("AgentCreator"), then 1,000 concurrent
//            call_tool("AskAgent") from 1,000 caller threads released
//            together. call_tool is blocking and the public API has no
//            asynchronous door into the CEO, so concurrency needs one caller
//            thread per call; the threads are created before the clock starts.
//   raw      http::HttpClient (the same one curl_multi loop LlmClient uses),
//            1,000 POST /v1/chat/completions submitted at once from one thread.
//
// The mock server (one event-loop thread, EventHttpServer) runs in a forked
// child process so that the peak RSS printed at the end (ru_maxrss, VmHWM) is
// this process's: runtime, HTTP client and caller threads. Both share the
// machine's two cores, as the CPU cost of the server is part of either run.
//
// Usage: bench_concurrency [calls=1000] [rounds=3] [employees=4] [latency_ms=500]
// The kaisha arm submits every call from one thread through
// CompanyRuntime::call_tool_async, as the raw arm submits its requests and as
// a protocol server or the planner keeps many calls in flight. BENCH_ASYNC=0:
// one OS thread per call, each blocked in CompanyRuntime::call_tool.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "runtime/http/http_client.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using kaisha::json;

struct Options {
  int calls = 1000;
  int rounds = 3;
  int employees = 4;
  int latency_ms = 500;
  std::string only;  // "raw" or "kaisha": run one side only (diagnosis)
  // Both sides send "Accept-Encoding: identity" (BENCH_IDENTITY=0 turns it
  // off). The mock never compresses (the cpp-httplib mock used to brotli
  // every response, ~4 ms of CPU each), so this only keeps curl from
  // advertising decoders it will not need.
  bool identity = true;
  // Connections are kept alive, as every real client does (BENCH_CLOSE=1
  // sends "Connection: close" instead). Rounds are cold either way: each of
  // the concurrent calls opens its own connection.
  bool close_connections = false;
  // The kaisha arm submits from one thread through call_tool_async, as the raw
  // arm does; BENCH_ASYNC=0: one blocked caller thread per call instead.
  bool async = true;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// "VmHWM:    12345 kB" -> 12345 (kB), or -1.
long proc_status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(f, line))
    if (line.rfind(k, 0) == 0) return std::atol(line.c_str() + k.size());
  return -1;
}

// utime + stime of a process, in seconds, from /proc/<pid>/stat.
double cpu_seconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close = all.rfind(')');  // the command name may contain spaces
  if (close == std::string::npos) return 0;
  std::istringstream rest(all.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15 (1-based)
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long ru_maxrss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // kB on Linux
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// ------------------------------------------------------------ mock server

// Forks a child that serves `script` on an ephemeral loopback port; returns
// {pid, port}. The child exits when its stdin pipe closes (this process ended
// or called stop_mock()).
struct MockChild {
  pid_t pid = -1;
  int port = 0;
  int keepalive_fd = -1;
};

MockChild start_mock(const std::string& script_text) {
  int port_pipe[2], life_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(life_pipe) != 0) {
    std::perror("pipe");
    std::exit(1);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(1);
  }
  if (pid == 0) {  // the server process
    close(port_pipe[0]);
    close(life_pipe[1]);
    auto script = kaisha::mockllm::parse_mock_script(script_text, "bench_concurrency");
    if (!script.ok()) {
      std::fprintf(stderr, "mock script: %s\n", script.error().message.c_str());
      _exit(2);
    }
    kaisha::mockllm::MockLlmServer server(std::move(script).value());
    auto port = server.start("127.0.0.1", 0);
    int p = port.ok() ? *port : -1;
    if (write(port_pipe[1], &p, sizeof p) != sizeof p) _exit(3);
    close(port_pipe[1]);
    if (p < 0) _exit(4);
    char c;
    while (read(life_pipe[0], &c, 1) > 0) {
    }  // blocks until the parent closes its end
    server.stop();
    _exit(0);
  }
  close(port_pipe[1]);
  close(life_pipe[0]);
  MockChild m;
  m.pid = pid;
  m.keepalive_fd = life_pipe[1];
  if (read(port_pipe[0], &m.port, sizeof m.port) != sizeof m.port || m.port <= 0) {
    std::fprintf(stderr, "mock server did not start\n");
    std::exit(1);
  }
  close(port_pipe[0]);
  return m;
}

void stop_mock(MockChild& m) {
  if (m.keepalive_fd >= 0) close(m.keepalive_fd);
  int status = 0;
  if (m.pid > 0) waitpid(m.pid, &status, 0);
  m = {};
}

// ------------------------------------------------------------ raw baseline

struct RoundResult {
  double wall_s = 0;
  int ok = 0;
  std::vector<double> latency_ms;  // per call
  double cpu_self_s = 0;           // CPU time of this process during the round
  double cpu_mock_s = 0;           // CPU time of the mock server process during the round
  long peak_rss_kb = 0;            // VmHWM of this process during the round
};

// Writing 5 to /proc/self/clear_refs resets VmHWM to the current RSS (Linux
// >= 4.0), so each round's VmHWM is its own peak. ru_maxrss cannot be reset.
void reset_hwm() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Runs one round and adds the CPU both processes spent on it.
template <class F>
RoundResult with_cpu(pid_t mock_pid, F&& round) {
  const double self0 = cpu_seconds(getpid()), mock0 = cpu_seconds(mock_pid);
  RoundResult r = round();
  r.cpu_self_s = cpu_seconds(getpid()) - self0;
  r.cpu_mock_s = cpu_seconds(mock_pid) - mock0;
  return r;
}

RoundResult raw_round(kaisha::http::HttpClient& http, const std::string& url, int calls, const Options& opt) {
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  RoundResult r;
  r.latency_ms.resize(static_cast<size_t>(calls));
  std::atomic<int> ok{0};
  const auto t0 = Clock::now();
  for (int i = 0; i < calls; ++i) {
    kaisha::http::HttpRequestSpec req;
    req.url = url;
    req.headers = {{"Content-Type", "application/json"}};
    if (opt.identity) req.headers.emplace_back("Accept-Encoding", "identity");
    if (opt.close_connections) req.headers.emplace_back("Connection", "close");
    // What an employee's chat looks like on the wire: system + user message.
    req.body = json{
        {"model", "echo"},
        {"messages", json::array({{{"role", "system"}, {"content", "You answer briefly."}},
                                  {{"role", "user"}, {"content", "ping " + std::to_string(i)}}})},
        {"temperature", 0.2},
        {"max_tokens",
         1024}}.dump();
    kaisha::http::HttpOptions opts;
    opts.timeout_ms = 60000;
    kaisha::http::HttpCallbacks cb;
    cb.on_done = [&, i, t0](kaisha::http::HttpResult res) {
      r.latency_ms[static_cast<size_t>(i)] = seconds_since(t0) * 1e3;
      if (res.ok()) ++ok;
      std::lock_guard lock(mu);
      if (++done == calls) cv.notify_one();
    };
    http.submit(std::move(req), opts, std::move(cb));
  }
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return done == calls; });
  r.wall_s = seconds_since(t0);
  r.ok = ok;
  return r;
}

// ------------------------------------------------------------------ kaisha

// Appending (rather than "e" + to_string) sidesteps a GCC 12 -Wrestrict
// false positive on operator+(const char*, string&&).
std::string employee_name(int i) {
  std::string name = "e";
  name += std::to_string(i);
  return name;
}

// `calls` caller threads, each blocked on a barrier until all exist; the
// clock starts when the barrier opens and stops when the last call returns.
RoundResult kaisha_round(kaisha::actors::CompanyRuntime& rt, int calls, int employees, int round) {
  RoundResult r;
  r.latency_ms.resize(static_cast<size_t>(calls));
  std::atomic<int> ok{0};
  Clock::time_point t0;
  std::barrier start(calls + 1, [&]() noexcept { t0 = Clock::now(); });
  std::vector<std::thread> callers;
  callers.reserve(static_cast<size_t>(calls));
  for (int i = 0; i < calls; ++i) {
    callers.emplace_back([&, i] {
      const json args{{"agent_name", employee_name(i % employees)},
                      {"prompt", "ping " + std::to_string(round) + "/" + std::to_string(i)}};
      start.arrive_and_wait();
      json res = rt.call_tool("AskAgent", args);
      r.latency_ms[static_cast<size_t>(i)] = seconds_since(t0) * 1e3;
      if (res.value("status", "") == "success" && res.value("output", json()).is_string() &&
          res["output"].get<std::string>().rfind("echo: ping", 0) == 0)
        ++ok;
      else if (ok.load() == 0 && i == 0)
        std::fprintf(stderr, "AskAgent failed: %s\n", res.dump().c_str());
    });
  }
  start.arrive_and_wait();
  for (auto& t : callers) t.join();
  r.wall_s = *std::max_element(r.latency_ms.begin(), r.latency_ms.end()) / 1e3;
  r.ok = ok;
  return r;
}

// The same calls through call_tool_async, all submitted from this thread;
// the clock stops when the last answer arrives.
RoundResult kaisha_round_async(kaisha::actors::CompanyRuntime& rt, int calls, int employees, int round) {
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  RoundResult r;
  r.latency_ms.resize(static_cast<size_t>(calls));
  std::atomic<int> ok{0};
  std::vector<json> args;
  args.reserve(static_cast<size_t>(calls));
  for (int i = 0; i < calls; ++i)
    args.push_back(json{{"agent_name", employee_name(i % employees)},
                        {"prompt", "ping " + std::to_string(round) + "/" + std::to_string(i)}});
  const auto t0 = Clock::now();
  for (int i = 0; i < calls; ++i) {
    rt.call_tool_async("AskAgent", args[static_cast<size_t>(i)], [&, i, t0](json res) {
      r.latency_ms[static_cast<size_t>(i)] = seconds_since(t0) * 1e3;
      if (res.value("status", "") == "success" && res.value("output", json()).is_string() &&
          res["output"].get<std::string>().rfind("echo: ping", 0) == 0)
        ++ok;
      std::lock_guard lock(mu);
      if (++done == calls) cv.notify_one();
    });
  }
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return done == calls; });
  r.wall_s = seconds_since(t0);
  r.ok = ok;
  return r;
}

std::unique_ptr<kaisha::actors::CompanyRuntime> start_runtime(const std::filesystem::path& dir, int port,
                                                              const Options& opt) {
  std::ofstream(dir / "cost_table.yaml") << "models:\n"
                                            "  mock-echo:\n"
                                            "    model_ref: mock:echo\n"
                                            "    type: local\n"
                                            "    create_resource_cost: 1\n"
                                            "    invoke_resource_cost: 1\n";
  kaisha::config::Config c;
  c.store_path = (dir / "kaisha.db").string();
  c.cost_table_file = (dir / "cost_table.yaml").string();
  c.ceo.model = "mock:ceo";
  c.budget.resource_total = 1e12;  // 1,000 asks hold 1 point each: never refused
  kaisha::config::ProviderConfig p;
  p.name = "mock";
  p.dialect = "openai";
  p.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  p.max_concurrency = opt.calls + 100;  // the cap must not queue the calls
  p.timeout_ms = 60000;
  if (opt.identity) p.headers["Accept-Encoding"] = "identity";
  if (opt.close_connections) p.headers["Connection"] = "close";
  c.providers["mock"] = p;
  c.retry.max_attempts = 1;  // a failure must show, not be retried away

  kaisha::actors::RuntimeOptions o;
  o.config = c;  // chat client left null: the real libcurl LlmClient from the config
  auto started = kaisha::actors::CompanyRuntime::start(std::move(o));
  if (!started.ok()) {
    std::fprintf(stderr, "CompanyRuntime::start: %s\n", started.error().message.c_str());
    std::exit(1);
  }
  auto rt = std::move(started).value();
  for (int e = 0; e < opt.employees; ++e) {
    json hired = rt->call_tool("AgentCreator", {{"agent_name", employee_name(e)},
                                                {"base_model", "mock-echo"},
                                                {"system_prompt", "You answer briefly."},
                                                {"description", "benchmark employee"}});
    if (hired.value("status", "") != "success") {
      std::fprintf(stderr, "AgentCreator: %s\n", hired.dump().c_str());
      std::exit(1);
    }
  }
  return rt;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (argc > 1) opt.calls = std::max(1, std::atoi(argv[1]));
  if (argc > 2) opt.rounds = std::max(1, std::atoi(argv[2]));
  if (argc > 3) opt.employees = std::max(1, std::atoi(argv[3]));
  if (argc > 4) opt.latency_ms = std::max(0, std::atoi(argv[4]));
  if (argc > 5) opt.only = argv[5];
  if (const char* e = std::getenv("BENCH_IDENTITY")) opt.identity = std::string(e) != "0";
  if (const char* e = std::getenv("BENCH_CLOSE")) opt.close_connections = std::string(e) == "1";
  if (const char* e = std::getenv("BENCH_ASYNC")) opt.async = std::string(e) != "0";

  // Fork before any thread exists in this process.
  MockChild mock = start_mock("defaults: { latency_ms: " + std::to_string(opt.latency_ms) +
                              " }\n"
                              "rules:\n"
                              "  - name: echo\n"
                              "    reply:\n"
                              "      text: \"echo: {{last_user}}\"\n"
                              "      usage: { input_tokens: 12, output_tokens: 4 }\n");
  const std::string url = "http://127.0.0.1:" + std::to_string(mock.port) + "/v1/chat/completions";
  std::printf("bench_concurrency: %d concurrent calls, mock latency %d ms, %d employees, %d rounds, %u cores%s%s\n",
              opt.calls, opt.latency_ms, opt.employees, opt.rounds, std::thread::hardware_concurrency(),
              opt.identity ? ", Accept-Encoding: identity" : "",
              opt.close_connections ? ", Connection: close" : ", keep-alive");
  if (opt.async)
    std::printf("kaisha arm: call_tool_async from one thread (BENCH_ASYNC=0: a blocked thread per call)\n");
  else
    std::printf("kaisha arm: %d caller threads, each blocked in call_tool (BENCH_ASYNC=0)\n", opt.calls);
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) std::printf("load average at start: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  std::printf("mock server: pid %d, port %d, one event-loop thread\n\n", mock.pid, mock.port);

  std::string tmpl = (std::filesystem::temp_directory_path() / "kaisha-conc-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::filesystem::path dir = tmpl;

  // Rounds alternate raw, kaisha, raw, kaisha, ... so that a change in the
  // machine's load (it is shared) hits both arms alike. Every round is cold:
  // a new HttpClient, or a new CompanyRuntime (employees hired before the
  // clock starts), so neither arm starts with connections kept alive from
  // the round before.
  const long rss_start = proc_status_kb("VmRSS");
  std::vector<RoundResult> raw, ks;
  std::vector<double> drains;
  for (int i = 0; i < opt.rounds; ++i) {
    if (opt.only != "kaisha") {
      reset_hwm();
      kaisha::http::HttpClient http;
      raw.push_back(with_cpu(mock.pid, [&] { return raw_round(http, url, opt.calls, opt); }));
      raw.back().peak_rss_kb = proc_status_kb("VmHWM");
    }
    if (opt.only != "raw") {
      reset_hwm();
      const auto round_dir = dir / ("round" + std::to_string(i));
      std::filesystem::create_directories(round_dir);
      auto rt = start_runtime(round_dir, mock.port, opt);
      ks.push_back(with_cpu(mock.pid, [&] {
        return opt.async ? kaisha_round_async(*rt, opt.calls, opt.employees, i)
                         : kaisha_round(*rt, opt.calls, opt.employees, i);
      }));
      ks.back().peak_rss_kb = proc_status_kb("VmHWM");
      // Tearing the runtime down waits for the journal to write what the
      // round queued: not part of the round's wall time, reported apart.
      const auto t0 = Clock::now();
      rt.reset();
      drains.push_back(seconds_since(t0));
    }
  }
  const long maxrss = ru_maxrss_kb();
  stop_mock(mock);
  std::filesystem::remove_all(dir);

  std::printf("%-7s %-6s %8s %6s %12s %12s %12s %10s %10s %12s\n", "what", "round", "wall_s", "ok", "p50_call_ms",
              "p99_call_ms", "max_call_ms", "cpu_self_s", "cpu_mock_s", "peak_rss_kB");
  auto row = [](const char* what, int i, const RoundResult& r) {
    std::printf("%-7s %-6d %8.3f %6d %12.1f %12.1f %12.1f %10.2f %10.2f %12ld\n", what, i + 1, r.wall_s, r.ok,
                percentile(r.latency_ms, 0.5), percentile(r.latency_ms, 0.99), percentile(r.latency_ms, 1.0),
                r.cpu_self_s, r.cpu_mock_s, r.peak_rss_kb);
  };
  for (size_t i = 0; i < raw.size(); ++i) row("raw", static_cast<int>(i), raw[i]);
  for (size_t i = 0; i < ks.size(); ++i) row("kaisha", static_cast<int>(i), ks[i]);

  std::vector<double> raw_w, ks_w;
  bool all_ok = true;
  for (const auto& r : raw) raw_w.push_back(r.wall_s), all_ok &= r.ok == opt.calls;
  for (const auto& r : ks) ks_w.push_back(r.wall_s), all_ok &= r.ok == opt.calls;
  const double raw_med = median(raw_w), ks_med = median(ks_w);
  if (!drains.empty())
    std::printf("\njournal drain at runtime teardown, per kaisha round (not in wall_s): median %.1f s\n",
                median(drains));
  std::printf("\nmedian wall: raw %.3f s, kaisha %.3f s, ratio kaisha/raw %.2fx, kaisha - raw %.1f ms\n", raw_med,
              ks_med, ks_med / raw_med, (ks_med - raw_med) * 1e3);
  if (!ks.empty())
    std::printf("target: kaisha wall <= 0.75 s: %s%s\n", ks_med <= 0.75 ? "MET" : "MISSED",
                all_ok ? "" : "  (NOT ALL CALLS SUCCEEDED)");
  std::vector<double> raw_rss, ks_rss;
  for (const auto& r : raw) raw_rss.push_back(static_cast<double>(r.peak_rss_kb));
  for (const auto& r : ks) ks_rss.push_back(static_cast<double>(r.peak_rss_kb));
  std::printf("\nmemory of this process (the mock server runs in a child process):\n");
  std::printf("  VmRSS at start                              %8ld kB\n", rss_start);
  std::printf("  VmHWM per round, median: raw                %8.0f kB\n", median(raw_rss));
  std::printf("  VmHWM per round, median: kaisha             %8.0f kB  (incl. %d caller threads)\n", median(ks_rss),
              opt.calls);
  std::printf("  ru_maxrss (whole run, cannot be reset)      %8ld kB\n", maxrss);
  return all_ok ? 0 : 1;
}
