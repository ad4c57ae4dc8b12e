// kaisha/version.hpp: which kaisha a program was built against. Any thread;
// no allocation; never fails.
#pragma once

namespace kaisha {

// The release, "MAJOR.MINOR.PATCH".
const char* version();

// The schema of the journal (SQLite) this kaisha writes: a journal of an
// older schema is migrated when opened to write; a newer one is refused.
int journal_schema_version();

}  // namespace kaisha
