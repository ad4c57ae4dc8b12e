#include "kaisha/version.hpp"

#include "runtime/store/journal_store.hpp"

#ifndef KAISHA_VERSION
#define KAISHA_VERSION "0.0.0"
#endif

namespace kaisha {

const char* version() { return KAISHA_VERSION; }

int journal_schema_version() { return store::JournalStore::current_schema_version(); }

}  // namespace kaisha
