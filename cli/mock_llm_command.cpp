// kaisha mock-llm: the scripted mock LLM server, for tests and demos.
#include <csignal>
#include <iostream>

#include "cli/commands.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"

namespace kaisha::cli {

int mock_llm_command(const std::string& script_path, const std::string& host, int port) {
  auto script = mockllm::load_mock_script(script_path);
  if (!script.ok()) {
    std::cerr << "kaisha mock-llm: " << script.error().message << "\n";
    return 2;
  }
  // Block the stop signals before the server's threads start (they inherit
  // the mask), so that only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  mockllm::MockLlmServer server(std::move(script).value());
  auto bound = server.start(host, port);
  if (!bound.ok()) {
    std::cerr << "kaisha mock-llm: " << bound.error().message << "\n";
    return 2;
  }
  // The first stdout line tells scripts and tests where to connect.
  std::cout << "mock-llm listening on http://" << host << ":" << *bound << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  server.stop();
  return 0;
}

}  // namespace kaisha::cli
