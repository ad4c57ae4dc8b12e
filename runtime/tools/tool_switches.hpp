// ToolSwitches: the two HASHIRU switches that govern tools (hashiru.md §9
// item 45), shared between whoever toggles them (the runtime, /switch in
// chat) and the tool sources that enforce them on every call. When off,
// calls are refused with the HASHIRU texts "Tool invocation mode is
// disabled" / "Tool creation mode is disabled".
#pragma once

#include <atomic>

namespace kaisha::tools {

struct ToolSwitches {
  std::atomic<bool> tool_creation{true};
  std::atomic<bool> tool_invocation{true};
};

}  // namespace kaisha::tools
