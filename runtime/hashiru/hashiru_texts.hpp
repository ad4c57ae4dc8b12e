// The exact user-visible texts of HASHIRU's tools (hashiru.md §2.4, §3.3,
// §9 items 8, 12, 16, 17, 37, 45). Models trained against the reference
// implementation react to these words, so they are kept verbatim, including
// "does not exists".
#pragma once

#include <string>

namespace kaisha::company::texts {

inline std::string agent_exists(const std::string& name) { return "Agent " + name + " already exists"; }
inline std::string agent_not_found(const std::string& name) { return "Agent " + name + " does not exists"; }
inline std::string model_not_found(const std::string& model) {
  return "Model " + model + " not found in the cost manager.";
}
inline std::string invalid_agent_name(const std::string& name) {
  return "Agent name '" + name +
         "' is invalid: it cannot have spaces or special characters. It should be a single word.";
}
inline std::string tool_not_found(const std::string& name) { return "Tool " + name + " not found"; }
inline std::string tool_failed(const std::string& name) { return "Tool `" + name + "` failed to run."; }

inline const char* kAgentCreationDisabled = "Agent creation mode is disabled.";
inline const char* kLocalInvocationDisabled = "Local invocation mode is disabled.";
inline const char* kCloudInvocationDisabled = "Cloud invocation mode is disabled.";
inline const char* kToolInvocationDisabled = "Tool invocation mode is disabled";
inline const char* kToolCreationDisabled = "Tool creation mode is disabled";

}  // namespace kaisha::company::texts
