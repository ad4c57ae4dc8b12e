#include <sstream>

#include "runtime/core/utf8.hpp"
#include "runtime/hashiru/entry/hashiru_view.hpp"

namespace kaisha::strategy {

std::string render_hashiru_event(const msg::ProgressEvent& e, NumberText) {
  using K = msg::EventKind;
  std::ostringstream o;
  switch (e.kind) {
    case K::memories:
      o << "[" << e.agent << "] " << utf8::one_line(e.text, 400) << "\n";
      break;
    case K::reflection:
    case K::summary:
      o << "[" << e.agent << "] " << e.text << "\n";
      break;
    default:
      break;
  }
  return o.str();
}

}  // namespace kaisha::strategy
