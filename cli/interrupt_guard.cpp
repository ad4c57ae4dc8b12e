#include "cli/interrupt_guard.hpp"

#include <csignal>
#include <cstdlib>
#include <iostream>

#include <pthread.h>
#include <unistd.h>

namespace kaisha::cli {
namespace {

sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGUSR2);  // private: wakes the watcher when the guard goes away
  return s;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  sigset_t s = stop_signals();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
  watcher_ = std::thread([this] {
    sigset_t w = stop_signals();
    int sig = 0;
    for (;;) {
      sigwait(&w, &sig);
      if (sig == SIGUSR2) return;  // normal end of the command
      if (sig != SIGINT) break;
      std::function<bool()> handler;
      {
        std::lock_guard<std::mutex> lock(mu_);
        handler = handler_;
      }
      if (!handler || !handler()) break;
    }
    std::cerr << "\nkaisha: interrupted; saving the journal\n" << std::flush;
    {
      // Held until the exit, so no watched runtime is destroyed meanwhile.
      std::lock_guard<std::mutex> lock(mu_);
      for (auto* rt : runtimes_) rt->interrupt("interrupted by the user (signal " + std::to_string(sig) + ")");
      std::_Exit(130);
    }
  });
}

void InterruptGuard::arm(actors::CompanyRuntime* runtime) {
  std::lock_guard<std::mutex> lock(mu_);
  runtimes_.clear();
  if (runtime) runtimes_.push_back(runtime);
}

void InterruptGuard::watch(actors::CompanyRuntime* runtime) {
  std::lock_guard<std::mutex> lock(mu_);
  runtimes_.push_back(runtime);
}

void InterruptGuard::unwatch(actors::CompanyRuntime* runtime) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase(runtimes_, runtime);
}

void InterruptGuard::on_interrupt(std::function<bool()> handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handler_ = std::move(handler);
}

InterruptGuard::~InterruptGuard() {
  pthread_kill(watcher_.native_handle(), SIGUSR2);
  watcher_.join();
}

}  // namespace kaisha::cli
