#include "runtime/random/stream_key.hpp"

#include <stdexcept>
#include <string_view>

#include "runtime/core/fnv1a.hpp"

namespace kaisha::random {

namespace {

// Little-endian whatever the machine's byte order, so the digest is too.
uint64_t hash_word(uint64_t state, uint64_t word) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((word >> (8 * i)) & 0xFF);
  return fnv1a_64(state, std::string_view(bytes, sizeof bytes));
}

}  // namespace

StreamKey::StreamKey(std::string name, std::vector<uint64_t> indices)
    : name_(std::move(name)), indices_(std::move(indices)) {
  if (name_.empty()) throw std::invalid_argument("StreamKey: the name is empty (it names what the stream decides)");
}

uint64_t StreamKey::digest() const {
  uint64_t h = hash_word(fnv1a_64(""), name_.size());
  h = fnv1a_64(h, name_);
  for (uint64_t index : indices_) h = hash_word(h, index);
  return h;
}

}  // namespace kaisha::random
