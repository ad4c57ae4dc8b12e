// The interop tests' A2A + ACP server: kaisha's real A2A and ACP adapters on
// a real HTTP server, serving a scripted company instead of LLM agents so
// that third-party clients (@a2a-js/sdk, acp-sdk) can check the protocol
// layer with known answers:
//   "fail..."  → the task fails with "the fixture fails on request"
//   "slow..."  → the task keeps working until it is canceled
//   anything else → completed with "echo: <input>"
// Prints "READY <base-url>" on stdout, then serves until SIGINT/SIGTERM.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <iostream>

#include "protocols/a2a/a2a_server.hpp"
#include "protocols/acp/acp_server.hpp"
#include "tests/protocols/fake_company_service.hpp"

int main() {
  using namespace kaisha;
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // Each task is worked on its own thread, a moment after it was submitted,
  // so that clients see it queued, working and then ended, as with a real
  // company.
  testing::FakeCompanyService company;
  auto work = [&company](std::string id, std::string input) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    company.start(id, "thinking about: " + input);
    if (input.rfind("slow", 0) == 0) return;  // until canceled
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    company.emit(id, "hire", "Echo (llama3.2, local)");
    if (input.rfind("fail", 0) == 0)
      company.fail(id, "the fixture fails on request");
    else
      company.complete(id, "echo: " + input);
  };
  company.on_submit = [work](const std::string& id, const std::string& input) {
    std::thread(work, id, input).detach();
  };
  company.agents_json = json{{"Echo", {{"description", "echoes its prompt"}, {"type", "local"}}}};
  protocols::HttpServer server(protocols::HttpServerOptions{});
  auto a2a = a2a::mount_a2a(server, company);
  auto acp = acp::mount_acp(server, company);
  auto port = server.start();
  if (!port.ok()) {
    std::cerr << "protocol_fixture_server: " << port.error().message << "\n";
    return 1;
  }
  std::cout << "READY " << server.base_url() << std::endl;
  int sig = 0;
  sigwait(&stop, &sig);
  server.stop();
  std::_Exit(0);  // task threads may still sleep; nothing left to clean up
}
