// Helpers for the pyramid's tests.
#pragma once

#include <stdexcept>
#include <utility>

#include "runtime/core/result.hpp"

namespace kaisha::pyramid {

// The value, or an exception carrying the error's message: a fixture that
// cannot load its data fails the test with the reason, not a bad variant access.
template <class T>
T value_or_throw(Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.error().message);
  return std::move(r).value();
}

}  // namespace kaisha::pyramid
