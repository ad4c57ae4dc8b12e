// FNV-1a, 64 bits: a hash of bytes that is the same in every build, on
// every platform and standard library (std::hash is not), so what is
// derived from it, such as a task's random seed, survives a restart.
#pragma once

#include <cstdint>
#include <string_view>

namespace kaisha {

// FNV-1a's offset basis: the state before any byte.
inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;

// FNV-1a over the bytes of `bytes`, from the offset basis 0xcbf29ce484222325
// with the prime 0x100000001b3.
uint64_t fnv1a_64(std::string_view bytes);

// The same hash continued from `state` (a previous fnv1a_64 value), so that
// several pieces can be hashed as one byte string without joining them.
uint64_t fnv1a_64(uint64_t state, std::string_view bytes);

}  // namespace kaisha
