// msgpack-cxx adaptor for nlohmann::json, so message structs can carry JSON
// values (tool arguments, schemas). A JSON value is packed as its compact text;
// the receiving side parses it back. Invalid JSON text unpacks as a JSON string
// holding the raw text rather than throwing, so a bad peer cannot crash a decode.
#pragma once

#include <cstdint>
#include <vector>

#include <msgpack.hpp>

#include "runtime/core/json.hpp"

namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
  namespace adaptor {

  template <>
  struct convert<nlohmann::json> {
    msgpack::object const& operator()(msgpack::object const& o, nlohmann::json& v) const {
      if (o.type == msgpack::type::NIL) {
        v = nullptr;
        return o;
      }
      if (o.type != msgpack::type::STR) throw msgpack::type_error();
      std::string text(o.via.str.ptr, o.via.str.size);
      v = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (v.is_discarded()) v = text;
      return o;
    }
  };

  template <>
  struct pack<nlohmann::json> {
    template <typename Stream>
    packer<Stream>& operator()(msgpack::packer<Stream>& o, nlohmann::json const& v) const {
      o.pack(v.dump());
      return o;
    }
  };

  template <>
  struct object_with_zone<nlohmann::json> {
    void operator()(msgpack::object::with_zone& o, nlohmann::json const& v) const {
      std::string s = v.dump();
      o.type = msgpack::type::STR;
      char* p = static_cast<char*>(o.zone.allocate_no_align(s.size()));
      std::memcpy(p, s.data(), s.size());
      o.via.str.ptr = p;
      o.via.str.size = static_cast<uint32_t>(s.size());
    }
  };

  }  // namespace adaptor
}  // MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS)
}  // namespace msgpack

namespace kaisha {

// A message struct (MSGPACK_DEFINE_MAP) as JSON and back, through its
// MessagePack form: the field names are the struct's own, so a field added
// later is carried without touching the caller. struct_from throws
// (msgpack::type_error, json errors) on a value of the wrong shape.
template <class T>
json struct_json(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return json::from_msgpack(buf.data(), buf.data() + buf.size());
}

template <class T>
T struct_from(const json& j) {
  const std::vector<uint8_t> bytes = json::to_msgpack(j);
  msgpack::object_handle oh = msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  T value;
  oh.get().convert(value);
  return value;
}

}  // namespace kaisha
