// kaisha mock-llm: the scripted mock LLM server, for tests and demos.
#include <csignal>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/stop_signals.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"

namespace kaisha::cli {

int mock_llm_command(const std::string& script_path, const std::string& host, int port) {
  auto script = mockllm::load_mock_script(script_path);
  if (!script.ok()) {
    std::cerr << "kaisha mock-llm: " << script.error().message << "\n";
    return 2;
  }
  block_stop_signals();  // before the server's threads start

  mockllm::MockLlmServer server(std::move(script).value());
  auto bound = server.start(host, port);
  if (!bound.ok()) {
    std::cerr << "kaisha mock-llm: " << bound.error().message << "\n";
    return 2;
  }
  // The first stdout line tells scripts and tests where to connect.
  std::cout << "mock-llm listening on http://" << host << ":" << *bound << std::endl;
  wait_for_stop_signal();
  server.stop();
  return 0;
}

}  // namespace kaisha::cli
