// msgpack-cxx adaptor for msg::EventKind: packed as its wire name, so the
// encoding is the text older peers sent. A name outside the vocabulary fails
// the decode (codec.hpp turns that into an error naming the message type).
#pragma once

#include <string_view>

#include <msgpack.hpp>

#include "runtime/messages/event_kind.hpp"

namespace msgpack {
MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {
  namespace adaptor {

  template <>
  struct convert<kaisha::msg::EventKind> {
    msgpack::object const& operator()(msgpack::object const& o, kaisha::msg::EventKind& v) const {
      if (o.type != msgpack::type::STR) throw msgpack::type_error();
      auto kind = kaisha::msg::parse_event_kind(std::string_view(o.via.str.ptr, o.via.str.size));
      if (!kind) throw msgpack::type_error();
      v = *kind;
      return o;
    }
  };

  template <>
  struct pack<kaisha::msg::EventKind> {
    template <typename Stream>
    packer<Stream>& operator()(msgpack::packer<Stream>& o, kaisha::msg::EventKind const& v) const {
      const std::string_view name = kaisha::msg::event_kind_name(v);
      o.pack_str(static_cast<uint32_t>(name.size()));
      o.pack_str_body(name.data(), static_cast<uint32_t>(name.size()));
      return o;
    }
  };

  }  // namespace adaptor
}  // MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS)
}  // namespace msgpack
