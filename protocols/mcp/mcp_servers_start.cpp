#include "protocols/mcp/mcp_servers_start.hpp"

#include <cstdio>

namespace kaisha::mcp {

std::vector<std::shared_ptr<McpToolProvider>> start_mcp_servers(const std::vector<config::McpServerConfig>& servers,
                                                                http::HttpClient& http) {
  std::vector<std::shared_ptr<McpToolProvider>> out;
  for (const auto& s : servers) {
    out.push_back(McpToolProvider::create(s, http));
    out.back()->start();
  }
  for (size_t i = 0; i < out.size(); ++i) {
    Status st = out[i]->wait_ready(std::chrono::milliseconds(servers[i].connect_timeout_ms + 1000));
    if (!st.ok())
      std::fprintf(stderr, "kaisha: %s: %s (its tools are offered once it is up)\n", servers[i].where.c_str(),
                   st.error().message.c_str());
  }
  return out;
}

}  // namespace kaisha::mcp
