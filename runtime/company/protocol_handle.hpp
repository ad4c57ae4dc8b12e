// ProtocolHandle: the id a protocol gave its client for a company task (an
// MCP task id, an ACP run id) and what the protocol needs to answer it
// again. A CompanyService with a journal keeps them (save_handle), so that a
// restarted server still answers the ids it gave out before.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::company {

struct ProtocolHandle {
  std::string protocol;        // "mcp_task" | "acp_run"
  std::string handle;          // the id the client holds
  std::string task_id;         // the company task it stands for
  std::string session_id;      // the company session that runs the task
  int64_t created_ms = 0;      // wall clock (it must mean the same after a restart)
  int64_t ttl_ms = 0;          // kept this long after created_ms; 0 = as long as the journal keeps the task
  json data = json::object();  // the protocol's own fields

  bool expired(int64_t now_ms) const { return ttl_ms > 0 && created_ms + ttl_ms <= now_ms; }
};

}  // namespace kaisha::company
