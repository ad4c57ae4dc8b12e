#include "transport/zap_handler.hpp"

#include <cstring>

#include "transport/curve_keys.hpp"

namespace kaisha::transport {

Result<ZapAuthoriser> ZapAuthoriser::from_z85(const std::vector<std::string>& keys) {
  ZapAuthoriser a;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto k = decode_z85_key(keys[i], "authorised key #" + std::to_string(i + 1));
    if (!k.ok()) return k.error();
    a.keys_.insert(*k);
  }
  return a;
}

bool ZapAuthoriser::allows(const std::string& z85) const {
  auto k = decode_z85_key(z85, "key");
  return k.ok() && keys_.count(*k) > 0;
}

std::vector<zmq::message_t> ZapAuthoriser::reply(const std::vector<zmq::message_t>& request, bool* accepted,
                                                 std::string* client) const {
  // Request: version, request id, domain, address, routing id, mechanism, credentials...
  // Reply:   version, request id, status code, status text, user id, metadata.
  *accepted = false;
  std::string request_id = request.size() > 1 ? request[1].to_string() : std::string();
  std::string status = "400";
  std::string text = "malformed ZAP request";
  std::string user;
  if (client) *client = request.size() > 3 ? request[3].to_string() : std::string("?");
  if (request.size() >= 6 && request[0].to_string_view() == "1.0") {
    auto mechanism = request[5].to_string_view();
    if (mechanism != "CURVE") {
      text = "mechanism " + std::string(mechanism) + " is not allowed";
    } else if (request.size() < 7 || request[6].size() != 32) {
      text = "CURVE request without a 32-byte public key";
    } else {
      Key k;
      std::memcpy(k.data(), request[6].data(), 32);
      if (keys_.count(k)) {
        status = "200";
        text = "OK";
        char z85[41] = {};
        zmq_z85_encode(z85, k.data(), k.size());
        user = z85;  // the key identifies the node; peers see it as User-Id metadata
        *accepted = true;
      } else {
        text = "public key is not authorised";
      }
    }
  }
  std::vector<zmq::message_t> out;
  out.emplace_back(std::string_view("1.0"));
  out.emplace_back(request_id);
  out.emplace_back(status);
  out.emplace_back(text);
  out.emplace_back(user);
  out.emplace_back();
  return out;
}

}  // namespace kaisha::transport
