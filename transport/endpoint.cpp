#include "transport/endpoint.hpp"

#include <string>

namespace kaisha::transport {

bool is_local_endpoint(std::string_view endpoint) {
  if (endpoint.starts_with("ipc://") || endpoint.starts_with("inproc://")) return true;
  if (!endpoint.starts_with("tcp://")) return false;
  std::string_view rest = endpoint.substr(6);
  // A connect endpoint may name a source address: "tcp://src;dst". The peer
  // address is what decides where bytes go.
  if (auto semi = rest.rfind(';'); semi != std::string_view::npos) rest = rest.substr(semi + 1);
  std::string_view host;
  if (rest.starts_with("[")) {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    host = rest.substr(1, close - 1);
  } else {
    auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = rest.substr(0, colon);
  }
  if (host == "localhost" || host == "::1") return true;
  if (!host.starts_with("127.")) return false;
  // Require a dotted quad so "127.example.com" is not mistaken for loopback.
  int dots = 0;
  for (char c : host) {
    if (c == '.')
      ++dots;
    else if (c < '0' || c > '9')
      return false;
  }
  return dots == 3;
}

}  // namespace kaisha::transport
