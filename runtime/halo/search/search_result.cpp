#include "runtime/halo/search/search_result.hpp"

namespace kaisha::halo {

std::string_view to_string(EndReason reason) {
  switch (reason) {
    case EndReason::terminal_success:
      return "terminal success";
    case EndReason::terminal_fail:
      return "terminal fail";
    case EndReason::depth_limit:
      return "depth limit";
    case EndReason::iteration_cap:
      return "iteration cap";
    case EndReason::evaluation_cap:
      return "evaluation cap";
    case EndReason::stopped:
      return "stopped";
  }
  return "unknown";
}

}  // namespace kaisha::halo
