// What every HiVA reply parser returns: a value the driver can always use,
// and what was wrong with the reply, so that the driver can journal it. The
// parsers never throw and never fail; every string they return is valid
// UTF-8, cut only at code-point boundaries.
#pragma once

#include <optional>
#include <string>

namespace kaisha::hiva {

template <class T>
struct Parsed {
  T value;
  // What was wrong, e.g. `topology decision reply: ADD_PARALLEL has no agent
  // description; the decision is NO_CHANGE`; several findings are joined by
  // "; ". nullopt when the reply was exactly as asked.
  std::optional<std::string> problem;
  // Whether `value` (or, for replies of several fields, part of it) is the
  // documented default rather than read from the reply. A reply can have a
  // problem without a default (invalid UTF-8 is repaired, not replaced).
  bool defaulted = false;
};

}  // namespace kaisha::hiva
