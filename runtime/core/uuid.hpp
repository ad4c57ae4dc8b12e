// Random identifiers in RFC 4122 form, for ids a peer may expect to be
// UUIDs (ACP run ids, A2A context ids).
#pragma once

#include <string>
#include <string_view>

namespace kaisha {

// A random RFC 4122 version-4 UUID.
std::string new_uuid();
// True for the canonical 8-4-4-4-12 hex form.
bool is_uuid(std::string_view s);

}  // namespace kaisha
