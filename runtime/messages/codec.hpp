// Encoding of message structs and envelopes. encode() never fails; decode()
// returns an Error naming the expected type instead of throwing on bad bytes,
// so a malformed frame from a peer can be counted and dropped.
#pragma once

#include <string>
#include <string_view>

#include <msgpack.hpp>

#include "runtime/core/result.hpp"
#include "runtime/messages/envelope.hpp"

namespace kaisha::msg {

template <class T>
std::string encode(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return std::string(buf.data(), buf.size());
}

// Nesting deeper than any message struct (an envelope holds a message holds
// a few lists of structs) is refused.
inline constexpr size_t kMaxFrameDepth = 32;

// What a frame of `size` bytes can honestly declare: every array element
// takes at least one byte and every map entry two. msgpack allocates a
// container's elements when it reads its header, so without these limits a
// 5-byte frame declaring 2^32-1 elements has it allocate ~100 GB up front.
inline msgpack::unpack_limit frame_limits(size_t size) {
  // Strings and blobs are read only once all their bytes are in the frame.
  const size_t unlimited = 0xffffffff;
  return msgpack::unpack_limit(size, size / 2, unlimited, unlimited, unlimited, kMaxFrameDepth);
}

template <class T>
Result<T> decode_as(std::string_view bytes, const char* type_name) {
  try {
    msgpack::object_handle oh =
        msgpack::unpack(bytes.data(), bytes.size(), nullptr, nullptr, frame_limits(bytes.size()));
    if (oh.get().type != msgpack::type::MAP)
      return Error{"decode", std::string(type_name) + ": expected a msgpack map"};
    return oh.get().as<T>();
  } catch (const std::exception& e) {
    return Error{"decode", std::string(type_name) + ": malformed msgpack (" + e.what() + ")"};
  }
}

template <class T>
Result<T> decode(std::string_view bytes) {
  return decode_as<T>(bytes, T::kType);
}

// The version `message` goes out as: its type's kVersion, unless the type
// declares a wire_version() overload for messages an older peer can read.
template <class T>
uint32_t wire_version(const T&) {
  return T::kVersion;
}

// Wraps a message struct into an envelope addressed from → to.
template <class T>
Envelope wrap(const T& message, AgentRef from, AgentRef to, std::string id, std::string correlation = {},
              std::string trace = {}) {
  Envelope e;
  e.id = std::move(id);
  e.correlation = std::move(correlation);
  e.from = std::move(from);
  e.to = std::move(to);
  e.type = T::kType;
  e.version = wire_version(message);
  e.trace = std::move(trace);
  e.payload = encode(message);
  return e;
}

// Extracts a message of type T from an envelope, refusing a different type or
// a newer version than this build understands.
template <class T>
Result<T> unwrap(const Envelope& e) {
  if (e.type != T::kType) return Error{"decode", "envelope carries '" + e.type + "', expected '" + T::kType + "'"};
  if (e.version > T::kVersion)
    return Error{"version", std::string(T::kType) + ": version " + std::to_string(e.version) +
                                " is newer than supported version " + std::to_string(T::kVersion)};
  return decode<T>(e.payload);
}

Result<Envelope> decode_envelope(std::string_view bytes);  // envelope_decode.cpp

}  // namespace kaisha::msg
