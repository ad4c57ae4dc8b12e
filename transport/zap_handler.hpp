// The ZAP (ZeroMQ Authentication Protocol, RFC 27) decision for CurveZMQ: a
// client is accepted only if its long-term public key is on the node's list.
// libzmq asks over inproc://zeromq.zap.01 in the socket's context during each
// CURVE handshake; the gateway's I/O thread answers with this class.
#pragma once

#include <array>
#include <set>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "runtime/core/result.hpp"

namespace kaisha::transport {

class ZapAuthoriser {
 public:
  using Key = std::array<unsigned char, 32>;

  // Z85 public keys; an Error names the first malformed one by position.
  static Result<ZapAuthoriser> from_z85(const std::vector<std::string>& keys);

  // Builds the reply to one ZAP request (frames as a REP socket delivers
  // them). Only CURVE with a listed key gets "200"; anything else, including
  // a malformed request, gets "400" so a bad client is refused, never let in.
  std::vector<zmq::message_t> reply(const std::vector<zmq::message_t>& request, bool* accepted,
                                    std::string* client) const;

  size_t size() const { return keys_.size(); }
  // Whether the Z85 key `z85` is on the list.
  bool allows(const std::string& z85) const;

 private:
  std::set<Key> keys_;
};

}  // namespace kaisha::transport
