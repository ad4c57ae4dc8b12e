// What a Recall brought back (driver_effects.hpp's Recalled), read once for
// every driver that recalls: the payload of memory/memory_injection.hpp's
// injection_payload(), or {"error": why} when retrieval failed.
#pragma once

#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::driver {

struct RecalledMemories {
  std::string error;              // non-empty: retrieval failed, and why
  json memories = json::array();  // the memories found (empty: none)
  std::string injection;          // the text that puts them before a model
  std::string transcript;         // how they are shown to the user
};

RecalledMemories read_recalled(const json& payload);

}  // namespace kaisha::driver
