#include "runtime/halo/search/node_label.hpp"

namespace kaisha::halo {

std::string_view to_string(NodeLabel label) {
  switch (label) {
    case NodeLabel::success:
      return "success";
    case NodeLabel::fail:
      return "fail";
    case NodeLabel::continue_:
      return "continue";
  }
  return "unknown";
}

}  // namespace kaisha::halo
