// decode_envelope: the envelope's fields read straight from the MessagePack
// map. msgpack-c's MSGPACK_DEFINE_MAP conversion copies every key of the map
// into a std::map of strings before it looks the fields up; for an envelope
// and its two agent references that was about a fifth of a cross-node round
// trip's instructions, twice per ask (bench/HISTORY.md). What it accepts and
// refuses is what the generic conversion did: keys must be strings, the
// first of two equal keys wins, unknown keys are ignored, a missing field
// keeps its default, a value of the wrong type is an error.
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "runtime/messages/codec.hpp"

namespace kaisha::msg {

namespace {

std::string_view key_of(const msgpack::object& key) {
  if (key.type == msgpack::type::STR) return {key.via.str.ptr, key.via.str.size};
  if (key.type == msgpack::type::BIN) return {key.via.bin.ptr, key.via.bin.size};
  throw msgpack::type_error();  // as std::string's conversion of the key would
}

// Calls `field(index_of_name)` for the first occurrence of each of `names`.
template <size_t N, class F>
void each_field(const msgpack::object& o, const std::string_view (&names)[N], F&& field) {
  if (o.type != msgpack::type::MAP) throw msgpack::type_error();
  uint32_t seen = 0;
  static_assert(N <= 32);
  for (uint32_t i = 0; i < o.via.map.size; ++i) {
    const msgpack::object_kv& kv = o.via.map.ptr[i];
    const std::string_view key = key_of(kv.key);
    for (size_t f = 0; f < N; ++f)
      if (key == names[f]) {
        if (!(seen & (1u << f))) field(f, kv.val);
        seen |= 1u << f;
        break;
      }
  }
}

void read_ref(const msgpack::object& o, AgentRef& r) {
  static constexpr std::string_view kNames[] = {"node", "name"};
  each_field(o, kNames, [&](size_t f, const msgpack::object& v) { v.convert(f == 0 ? r.node : r.name); });
}

}  // namespace

Result<Envelope> decode_envelope(std::string_view bytes) {
  Envelope e;
  try {
    msgpack::object_handle oh =
        msgpack::unpack(bytes.data(), bytes.size(), nullptr, nullptr, frame_limits(bytes.size()));
    if (oh.get().type != msgpack::type::MAP) return Error{"decode", "envelope: expected a msgpack map"};
    static constexpr std::string_view kNames[] = {
        "envelope_version", "id",          "correlation", "from",    "to",       "type",
        "version",          "deadline_ms", "trace",       "payload", "budget_ms"};
    each_field(oh.get(), kNames, [&](size_t f, const msgpack::object& v) {
      switch (f) {
        case 0:
          v.convert(e.envelope_version);
          return;
        case 1:
          v.convert(e.id);
          return;
        case 2:
          v.convert(e.correlation);
          return;
        case 3:
          return read_ref(v, e.from);
        case 4:
          return read_ref(v, e.to);
        case 5:
          v.convert(e.type);
          return;
        case 6:
          v.convert(e.version);
          return;
        case 7:
          v.convert(e.deadline_ms);
          return;
        case 8:
          v.convert(e.trace);
          return;
        case 9:
          v.convert(e.payload);
          return;
        default:
          v.convert(e.budget_ms);
          return;
      }
    });
  } catch (const std::exception& ex) {
    return Error{"decode", std::string("envelope: malformed msgpack (") + ex.what() + ")"};
  }
  if (e.envelope_version < 1 || e.envelope_version > kEnvelopeVersion)
    return Error{"version", "envelope version " + std::to_string(e.envelope_version) +
                                " is not supported (this build speaks 1 to " + std::to_string(kEnvelopeVersion) + ")"};
  if (e.type.empty() || e.id.empty()) return Error{"decode", "envelope: missing 'type' or 'id'"};
  return e;
}

}  // namespace kaisha::msg
