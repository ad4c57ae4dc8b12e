#include "runtime/http/address_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdlib>
#include <cstring>

namespace kaisha::http {

namespace {

struct V4Range {
  uint32_t net;
  int prefix;
  const char* kind;
};

// Every IPv4 network that is not the public internet.
constexpr V4Range kInternalV4[] = {
    {0x00000000, 8, "unspecified"},
    {0x0A000000, 8, "private"},
    {0x64400000, 10, "shared (CGNAT)"},
    {0x7F000000, 8, "loopback"},
    {0xA9FE0000, 16, "link-local"},
    {0xAC100000, 12, "private"},
    {0xC0000000, 24, "IETF protocol assignments"},
    {0xC0A80000, 16, "private"},
    {0xC6120000, 15, "benchmarking"},
    {0xE0000000, 4, "multicast"},
    {0xF0000000, 4, "reserved"},
};

std::string v4_kind(uint32_t a) {
  for (const V4Range& r : kInternalV4) {
    uint32_t mask = r.prefix == 0 ? 0 : ~uint32_t{0} << (32 - r.prefix);
    if ((a & mask) == r.net) return r.kind;
  }
  return "";
}

uint32_t v4_at(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

bool all_zero(const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

std::string v6_kind(const unsigned char* b) {
  if (all_zero(b, 15) && b[15] == 1) return "loopback";
  if (all_zero(b, 16)) return "unspecified";
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-compatible ::a.b.c.d: the IPv4 one decides.
  if (all_zero(b, 10) && ((b[10] == 0xff && b[11] == 0xff) || (b[10] == 0 && b[11] == 0))) {
    std::string k = v4_kind(v4_at(b + 12));
    return k.empty() ? "" : k + " (IPv4 in IPv6)";
  }
  // NAT64 64:ff9b::/96 and 6to4 2002:V4::/48 reach the embedded IPv4 address.
  static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, nat64, 12) == 0) {
    std::string k = v4_kind(v4_at(b + 12));
    return k.empty() ? "" : k + " (NAT64)";
  }
  if (b[0] == 0x20 && b[1] == 0x02) {
    std::string k = v4_kind(v4_at(b + 2));
    return k.empty() ? "" : k + " (6to4)";
  }
  if ((b[0] & 0xfe) == 0xfc) return "private (unique local)";
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return "link-local";
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return "site-local";
  if (b[0] == 0xff) return "multicast";
  return "";
}

}  // namespace

Result<IpNetwork> IpNetwork::parse(const std::string& text) {
  IpNetwork n;
  std::string addr = text;
  int prefix = -1;
  if (size_t slash = text.find('/'); slash != std::string::npos) {
    addr = text.substr(0, slash);
    std::string p = text.substr(slash + 1);
    char* end = nullptr;
    long v = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || v < 0) return Error{"config", "'" + text + "': bad prefix length"};
    prefix = static_cast<int>(v);
  }
  if (inet_pton(AF_INET, addr.c_str(), n.bytes) == 1) {
    n.family = AF_INET;
    if (prefix > 32) return Error{"config", "'" + text + "': an IPv4 prefix is at most 32"};
    n.prefix = prefix < 0 ? 32 : prefix;
  } else if (inet_pton(AF_INET6, addr.c_str(), n.bytes) == 1) {
    n.family = AF_INET6;
    if (prefix > 128) return Error{"config", "'" + text + "': an IPv6 prefix is at most 128"};
    n.prefix = prefix < 0 ? 128 : prefix;
  } else {
    return Error{"config", "'" + text + "' is not an IP address or network (e.g. 10.0.0.0/8, 127.0.0.2, fd00::/8)"};
  }
  return n;
}

bool IpNetwork::contains(int fam, const unsigned char* addr) const {
  if (fam != family) return false;
  int full = prefix / 8, rest = prefix % 8;
  if (std::memcmp(addr, bytes, static_cast<size_t>(full)) != 0) return false;
  if (rest == 0) return true;
  unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (addr[full] & mask) == (bytes[full] & mask);
}

AddressPolicy::AddressPolicy(bool allow_all_internal, std::vector<IpNetwork> allowed)
    : allow_all_(allow_all_internal), allowed_(std::move(allowed)) {}

std::string internal_address_kind(const sockaddr* addr) {
  if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    return v4_kind(ntohl(in->sin_addr.s_addr));
  }
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    return v6_kind(in6->sin6_addr.s6_addr);
  }
  return "non-IP";
}

std::string address_text(const sockaddr* addr) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (addr->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, buf, sizeof buf);
  else if (addr->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, buf, sizeof buf);
  return buf;
}

std::string AddressPolicy::check(const sockaddr* addr) const {
  if (allow_all_) return "";
  std::string kind = internal_address_kind(addr);
  if (kind.empty()) return "";
  const unsigned char* raw = nullptr;
  if (addr->sa_family == AF_INET)
    raw = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(addr)->sin_addr);
  else if (addr->sa_family == AF_INET6)
    raw = reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr.s6_addr;
  if (raw)
    for (const IpNetwork& n : allowed_)
      if (n.contains(addr->sa_family, raw)) return "";
  return address_text(addr) + " is an internal address (" + kind + ")";
}

}  // namespace kaisha::http
