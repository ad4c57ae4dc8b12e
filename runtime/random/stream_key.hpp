// What a random stream decides, e.g. ("halo.rollout", iteration 3,
// rollout 1). A stream is keyed by its decision, never by the order in which
// outcomes arrived, so the same decision draws the same numbers in a replay.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace kaisha::random {

class StreamKey {
 public:
  // A name and any number of integer indices. An index is taken modulo
  // 2^64 (so -1 is 2^64 - 1). Throws std::invalid_argument for an empty name.
  template <class... Index>
  explicit StreamKey(std::string name, Index... indices)
      : StreamKey(std::move(name), std::vector<uint64_t>{static_cast<uint64_t>(indices)...}) {
    static_assert((std::is_integral_v<Index> && ...), "StreamKey indices are integers");
  }
  StreamKey(std::string name, std::vector<uint64_t> indices);

  const std::string& name() const { return name_; }
  const std::vector<uint64_t>& indices() const { return indices_; }

  // FNV-1a 64 over an encoding that tells keys apart: the name's length as
  // 8 little-endian bytes, the name's bytes, then each index as 8
  // little-endian bytes.
  uint64_t digest() const;

  bool operator==(const StreamKey& other) const { return name_ == other.name_ && indices_ == other.indices_; }
  bool operator!=(const StreamKey& other) const { return !(*this == other); }

 private:
  std::string name_;
  std::vector<uint64_t> indices_;
};

}  // namespace kaisha::random
