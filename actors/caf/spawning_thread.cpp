#include "actors/caf/spawning_thread.hpp"

#include <caf/logger.hpp>

namespace kaisha::actors {

// kaisha turns CAF's logging off, so the thread loses no log lines.
SpawningThread::~SpawningThread() { caf::logger::set_current_actor_system(nullptr); }

}  // namespace kaisha::actors
