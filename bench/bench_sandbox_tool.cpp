// Sandboxed tool call overhead (issue 6): the p50 wall time of calling a
// no-op Python tool the way kaisha calls every created tool — bubblewrap,
// rlimits, the JSON runner, the tool module compiled and run — against a
// plain `python3 -c pass` started by the same process runner in the same
// run. Prints both distributions and their ratio.
//
//   bench_sandbox_tool [iterations=30]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "runtime/sandbox/process_runner.hpp"
#include "runtime/sandbox/python_tool.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace {

using namespace kaisha;

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

void print(const char* what, const std::vector<double>& ms) {
  std::printf("%-34s p50 %8.1f ms   p90 %8.1f ms   min %8.1f ms\n", what, percentile(ms, 0.5), percentile(ms, 0.9),
              *std::min_element(ms.begin(), ms.end()));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(3, std::atoi(argv[1])) : 30;
  if (Status s = sandbox::sandbox_available(); !s) {
    std::fprintf(stderr, "sandbox unavailable: %s\n", s.error().message.c_str());
    return 1;
  }
  const std::string dir = (std::filesystem::temp_directory_path() / "kaisha-bench-sandbox").string();
  std::filesystem::create_directories(dir + "/ws");
  chmod(dir.c_str(), 0755);
  chmod((dir + "/ws").c_str(), 0755);
  const std::string tool = dir + "/noop.py";
  std::ofstream(tool) << "__all__ = ['Noop']\nclass Noop:\n    def run(self, **kwargs):\n        return None\n";

  sandbox::ProcessSpec plain;
  plain.path = "/usr/bin/python3";
  plain.argv = {"python3", "-c", "pass"};
  plain.env = {"PATH=/usr/bin:/bin"};
  sandbox::SandboxLimits limits;

  std::vector<double> raw, boxed;
  for (int i = 0; i < n; ++i) {  // interleaved, so machine load hits both alike
    auto p = sandbox::run_process(plain);
    if (!p || !p->exited || p->exit_code != 0) {
      std::fprintf(stderr, "python3 -c pass failed\n");
      return 1;
    }
    raw.push_back(static_cast<double>(p->wall_ms));
    auto t0 = std::chrono::steady_clock::now();
    auto r = sandbox::run_python_tool(tool, "Noop", kaisha::json::object(), dir + "/ws", limits);
    auto t1 = std::chrono::steady_clock::now();
    if (!r) {
      std::fprintf(stderr, "sandboxed tool failed: %s\n", r.error().message.c_str());
      return 1;
    }
    boxed.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::printf("%d calls each\n", n);
  print("python3 -c pass (plain)", raw);
  print("no-op tool in the sandbox", boxed);
  std::printf("ratio sandboxed/plain at p50: %.2fx (overhead %.1f ms)\n", percentile(boxed, 0.5) / percentile(raw, 0.5),
              percentile(boxed, 0.5) - percentile(raw, 0.5));
  std::filesystem::remove_all(dir);
  return 0;
}
