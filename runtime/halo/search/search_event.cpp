#include "runtime/halo/search/search_event.hpp"

namespace kaisha::halo {

std::string_view to_string(RolloutEnd end) {
  switch (end) {
    case RolloutEnd::success:
      return "success";
    case RolloutEnd::fail:
      return "fail";
    case RolloutEnd::depth_exhausted:
      return "depth exhausted";
  }
  return "unknown";
}

}  // namespace kaisha::halo
