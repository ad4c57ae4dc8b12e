#include "runtime/suite/suite_item.hpp"

#include <algorithm>

namespace kaisha::suite {

bool known_format(std::string_view format) {
  return std::find(kFormats.begin(), kFormats.end(), format) != kFormats.end();
}

}  // namespace kaisha::suite
