#include "protocols/mcp/wire/mcp_protocol.hpp"

#include <algorithm>
#include <random>

namespace kaisha::mcp {

const std::vector<std::string>& modern_versions() {
  static const std::vector<std::string> v{kModernVersion};
  return v;
}

bool is_modern_version(std::string_view v) {
  const auto& all = modern_versions();
  return std::find(all.begin(), all.end(), v) != all.end();
}

std::vector<std::string> all_versions() {
  std::vector<std::string> v = modern_versions();
  v.insert(v.end(), legacy_versions().begin(), legacy_versions().end());
  return v;
}

const std::vector<std::string>& legacy_versions() {
  static const std::vector<std::string> v{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}

bool is_legacy_version(std::string_view v) {
  const auto& all = legacy_versions();
  return std::find(all.begin(), all.end(), v) != all.end();
}

std::string negotiate_version(std::string_view requested) {
  return is_legacy_version(requested) ? std::string(requested) : std::string(kLatestVersion);
}

const std::vector<std::string>& log_levels() {
  static const std::vector<std::string> v{"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};
  return v;
}

std::optional<int> log_level_rank(std::string_view level) {
  const auto& all = log_levels();
  auto it = std::find(all.begin(), all.end(), level);
  if (it == all.end()) return std::nullopt;
  return static_cast<int>(it - all.begin());
}

std::string new_session_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 2; ++i) {
    uint64_t x = rng();
    for (int j = 0; j < 16; ++j) id.push_back(hex[(x >> (j * 4)) & 0xF]);
  }
  return id;
}

}  // namespace kaisha::mcp
