// A closed-loop load generator for the protocol benchmarks: `clients`
// requests in flight until `total` have completed, with latency percentiles
// and requests/s. Header-only: each benchmark is one translation unit.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

namespace kaisha::bench {

struct Figures {
  double p50_us = 0, p90_us = 0, p99_us = 0, rps = 0;
  int errors = 0;
};

// The p-quantile (0..1) of `v`; sorts `v`.
inline double pct(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// `send(slot, done)` starts one request and calls done(ok) when it ends, from
// any thread.
using Send = std::function<void(int slot, std::function<void(bool)> done)>;

inline Figures closed_loop(const Send& send, int clients, int total) {
  using Clock = std::chrono::steady_clock;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<double> lat;
  lat.reserve(static_cast<size_t>(total));
  int started = 0, done = 0, errors = 0;
  std::function<void(int)> one;
  one = [&](int slot) {
    const auto t0 = Clock::now();
    send(slot, [&, t0, slot](bool ok) {
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      bool more = false;
      {
        std::lock_guard lock(mu);
        lat.push_back(us);
        if (!ok) ++errors;
        ++done;
        if (started < total) {
          ++started;
          more = true;
        }
      }
      if (more)
        one(slot);
      else
        cv.notify_all();
    });
  };
  const auto t0 = Clock::now();
  const int n = std::min(clients, total);
  {
    std::lock_guard lock(mu);
    started = n;
  }
  for (int i = 0; i < n; ++i) one(i);
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return done == total; });
  Figures f;
  f.rps = total / std::chrono::duration<double>(Clock::now() - t0).count();
  f.p50_us = pct(lat, 0.50);
  f.p90_us = pct(lat, 0.90);
  f.p99_us = pct(lat, 0.99);
  f.errors = errors;
  return f;
}

}  // namespace kaisha::bench
