// How the routing part's error messages write a number: the shortest text
// that reads back as the same double ("0.15", not "0.14999999999999999"),
// and "nan", "inf" or "-inf" for the values JSON cannot hold.
#pragma once

#include <string>

namespace kaisha::hiva {

std::string number_text(double v);

}  // namespace kaisha::hiva
