// AddressPolicy: which IP addresses an outgoing request may connect to. Used
// where the URL comes from a model (GetWebsite), so that a prompt-injected
// model cannot reach a service on this machine, the local network or a cloud
// metadata endpoint (169.254.169.254).
//
// Internal addresses are refused unless allowed: loopback (127/8, ::1),
// "this host" (0/8, ::), private (10/8, 172.16/12, 192.168/16, fc00::/7),
// shared/CGNAT (100.64/10), link-local (169.254/16, fe80::/10), multicast and
// reserved (224/4, 240/4, ff00::/8), and the same IPv4 addresses embedded in
// IPv6 (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64
// 64:ff9b::/96, 6to4 2002::/16). Every other address is public and allowed.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::http {

// An IPv4 or IPv6 network: an address and a prefix length.
struct IpNetwork {
  int family = 0;  // AF_INET or AF_INET6
  unsigned char bytes[16] = {};
  int prefix = 0;

  // "10.0.0.0/8", "fd00::/8", or a single address ("127.0.0.2", "::1").
  static Result<IpNetwork> parse(const std::string& text);
  bool contains(int family, const unsigned char* addr) const;
};

class AddressPolicy {
 public:
  // Refuses every internal address.
  AddressPolicy() = default;
  // `allow_all_internal` lets every address through; otherwise internal
  // addresses inside one of `allowed` are let through and the rest refused.
  AddressPolicy(bool allow_all_internal, std::vector<IpNetwork> allowed);

  // "" when `addr` may be connected to; otherwise why not, naming the address
  // ("127.0.0.1 is an internal address (loopback)").
  std::string check(const sockaddr* addr) const;

 private:
  bool allow_all_ = false;
  std::vector<IpNetwork> allowed_;
};

// The kind of internal address `addr` is ("loopback", "private", ...), or ""
// for a public one. IPv6 forms embedding an IPv4 address are judged by it.
std::string internal_address_kind(const sockaddr* addr);

// The numeric text of an AF_INET/AF_INET6 address ("127.0.0.1", "::1").
std::string address_text(const sockaddr* addr);

}  // namespace kaisha::http
