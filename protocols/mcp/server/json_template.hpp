// "{{name}}" placeholders in JSON data files (fixture contents, prompt
// messages, user-visible texts), filled from a JSON object of values.
#pragma once

#include "runtime/core/json.hpp"

namespace kaisha::mcp {

// Replaces "{{name}}" in every string of `v` (recursively) with vars[name]
// ("{{a.b}}" reaches into objects: vars["a"]["b"]): strings as they are,
// other values as JSON text. Unknown names stay as written.
json fill_template(const json& v, const json& vars);

}  // namespace kaisha::mcp
