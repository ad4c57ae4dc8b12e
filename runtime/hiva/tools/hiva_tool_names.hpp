// The names of the tools HiVA's driver asks for with RunTool and
// HivaToolSource serves: one list for both, with no library behind it.
#pragma once

namespace kaisha::hiva {

inline constexpr const char* kAgentTool = "hiva.agent_tool";         // {"code", "input"}: run tool_function
inline constexpr const char* kValidateTool = "hiva.validate_tool";   // {"code"}: load it, do not call it
inline constexpr const char* kEnvironmentTool = "hiva.environment";  // {"item", "answer"}: judge an answer
inline constexpr const char* kEmbedTool = "hiva.embed";              // {"texts"}: the configured embedder's vectors

}  // namespace kaisha::hiva
