#include "actors/strategy_kit/handler_failure.hpp"

#include <caf/message.hpp>
#include <caf/sec.hpp>

#include "runtime/core/utf8.hpp"

namespace kaisha::actors {

std::string describe_handler_failure(const std::string& actor, const std::exception_ptr& e) {
  std::string what = "an exception that is not a std::exception";
  try {
    if (e) std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    what = ex.what();
  } catch (...) {
  }
  // what() may quote the very bytes that made it throw.
  return actor + " stopped after an error in a message handler: " + utf8::repair(what);
}

caf::error handler_failure_error(const std::string& text) { return caf::make_error(caf::sec::runtime_error, text); }

}  // namespace kaisha::actors
