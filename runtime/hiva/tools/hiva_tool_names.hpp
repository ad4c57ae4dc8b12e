// The names of the tools HiVA's driver asks for with RunTool: one list for
// the driver and what serves them, with no library behind it. HivaToolSource
// serves all but the environment, which TaskSetEnvironment judges on the
// strategy's environment actor.
#pragma once

namespace kaisha::hiva {

inline constexpr const char* kAgentTool = "hiva.agent_tool";         // {"code", "input"}: run tool_function
inline constexpr const char* kValidateTool = "hiva.validate_tool";   // {"code"}: load it, do not call it
inline constexpr const char* kEnvironmentTool = "hiva.environment";  // {"item", "answer", "answers"?}: judge an answer
inline constexpr const char* kEmbedTool = "hiva.embed";              // {"texts"}: the configured embedder's vectors

}  // namespace kaisha::hiva
