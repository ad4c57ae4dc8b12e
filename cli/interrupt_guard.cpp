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
    if (auto* rt = runtime_.load()) rt->interrupt("interrupted by the user (signal " + std::to_string(sig) + ")");
    std::_Exit(130);
  });
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
