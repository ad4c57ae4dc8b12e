#include "protocols/mcp/client/mcp_servers_start.hpp"

#include <cstdio>

#include "protocols/mcp/client/mcp_tool_source.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::mcp {
namespace {

// The servers and the HTTP loop they run on: the servers stop before the
// loop they use goes away.
struct McpServers {
  http::HttpClient http;
  std::vector<std::shared_ptr<McpToolSource>> servers;
  ~McpServers() {
    for (auto& s : servers) s->stop();
  }
};

}  // namespace

std::vector<std::shared_ptr<company::ToolSource>> start_mcp_servers(
    const std::vector<config::McpServerConfig>& servers) {
  if (servers.empty()) return {};
  auto all = std::make_shared<McpServers>();
  for (const auto& s : servers) {
    all->servers.push_back(McpToolSource::create(s, all->http));
    all->servers.back()->start();
  }
  for (size_t i = 0; i < all->servers.size(); ++i) {
    Status st = all->servers[i]->wait_ready(std::chrono::milliseconds(servers[i].connect_timeout_ms + 1000));
    if (!st.ok())
      std::fprintf(stderr, "kaisha: %s: %s (its tools are offered once it is up)\n", servers[i].where.c_str(),
                   st.error().message.c_str());
  }
  // Each source handed out shares ownership of the whole set (aliasing
  // shared_ptr), so the HTTP loop outlives every source still in use.
  std::vector<std::shared_ptr<company::ToolSource>> out;
  for (const auto& p : all->servers) out.push_back(std::shared_ptr<company::ToolSource>(all, p.get()));
  return out;
}

}  // namespace kaisha::mcp
