// What every HALO reply parser returns (halo.md §12 item 3): a value the
// driver can always use, and what was wrong with the reply, so that the
// driver can journal it. The parsers never throw and never fail.
#pragma once

#include <optional>
#include <string>

namespace kaisha::halo {

template <class T>
struct Parsed {
  T value;
  // What was wrong, e.g. `judge reply: key "status" is a number, expected
  // one of success|fail|continue`; several findings are joined by "; ".
  // nullopt when the reply was exactly as asked.
  std::optional<std::string> problem;
  // Whether `value` (or, for replies of several fields, part of it) is the
  // documented default rather than read from the reply. A reply can have a
  // problem without a default (a score of 1.7 is clamped to 1, not replaced).
  bool defaulted = false;
};

}  // namespace kaisha::halo
