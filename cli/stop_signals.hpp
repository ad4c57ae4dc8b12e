// Long-running commands (mock-llm, node, serve) stop on SIGINT or SIGTERM.
// block_stop_signals() must run before any thread starts: threads inherit the
// mask, so only wait_for_stop_signal() receives the signals.
#pragma once

#include <pthread.h>
#include <signal.h>

namespace kaisha::cli {

inline sigset_t stop_signal_set() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  return s;
}

inline void block_stop_signals() {
  const sigset_t s = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}

// Blocks until SIGINT or SIGTERM arrives; returns the signal.
inline int wait_for_stop_signal() {
  const sigset_t s = stop_signal_set();
  int sig = 0;
  sigwait(&s, &sig);
  return sig;
}

}  // namespace kaisha::cli
