#include "runtime/telemetry/trace_context.hpp"

#include <cstdint>
#include <random>

#include "runtime/core/fnv1a.hpp"

namespace kaisha::telemetry {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// One generator per thread: no lock on the hot path, and two threads never
// share (or race on) a generator's state.
std::mt19937_64& generator() {
  thread_local std::mt19937_64 gen = [] {
    std::random_device rd;
    std::seed_seq seed{rd(), rd(), rd(), rd()};
    return std::mt19937_64(seed);
  }();
  return gen;
}

void append_hex(std::string& out, uint64_t v) {
  char digits[16];
  for (int i = 15; i >= 0; --i, v >>= 4) digits[i] = kHex[v & 0xf];
  out.append(digits, sizeof digits);
}

bool lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool all_lower_hex(std::string_view s) {
  for (char c : s)
    if (!lower_hex(c)) return false;
  return true;
}

}  // namespace

bool valid_hex_id(std::string_view s, size_t digits) {
  if (s.size() != digits || !all_lower_hex(s)) return false;
  return s.find_first_not_of('0') != std::string_view::npos;
}

std::string new_trace_id() {
  // Both halves zero has probability 2^-128; the loop is there so that the
  // promise "never all zero" holds without an argument about odds.
  std::string id;
  do {
    id.clear();
    append_hex(id, generator()());
    append_hex(id, generator()());
  } while (!valid_hex_id(id, 32));
  return id;
}

TraceContext derived_context(std::string_view seed) {
  uint64_t hi = fnv1a_64(kFnv1aOffsetBasis, seed), lo = fnv1a_64(0x84222325cbf29ce4ULL, seed);
  uint64_t span = fnv1a_64(0x9e3779b97f4a7c15ULL, seed);
  if (hi == 0 && lo == 0) lo = 1;  // an all-zero id is invalid
  if (span == 0) span = 1;
  TraceContext c;
  append_hex(c.trace_id, hi);
  append_hex(c.trace_id, lo);
  append_hex(c.span_id, span);
  return c;
}

std::string new_span_id() {
  std::string id;
  do {
    id.clear();
    append_hex(id, generator()());
  } while (!valid_hex_id(id, 16));
  return id;
}

TraceContext TraceContext::new_root(bool sampled) { return {new_trace_id(), new_span_id(), sampled}; }

TraceContext TraceContext::child() const { return {trace_id, new_span_id(), sampled}; }

bool TraceContext::valid() const { return valid_hex_id(trace_id, 32) && valid_hex_id(span_id, 16); }

std::string format_traceparent(const TraceContext& c) {
  return "00-" + c.trace_id + "-" + c.span_id + (c.sampled ? "-01" : "-00");
}

std::optional<TraceContext> parse_traceparent(std::string_view h) {
  while (!h.empty() && (h.front() == ' ' || h.front() == '\t')) h.remove_prefix(1);
  while (!h.empty() && (h.back() == ' ' || h.back() == '\t')) h.remove_suffix(1);
  // version(2) - trace-id(32) - parent-id(16) - trace-flags(2)
  constexpr size_t kLength = 2 + 1 + 32 + 1 + 16 + 1 + 2;
  if (h.size() < kLength) return std::nullopt;
  const std::string_view version = h.substr(0, 2);
  if (!all_lower_hex(version) || version == "ff") return std::nullopt;
  if (version == "00") {
    if (h.size() != kLength) return std::nullopt;
  } else if (h.size() > kLength && h[kLength] != '-') {
    // A future version may only extend the header by fields after a dash.
    return std::nullopt;
  }
  if (h[2] != '-' || h[35] != '-' || h[52] != '-') return std::nullopt;
  const std::string_view trace_id = h.substr(3, 32);
  const std::string_view span_id = h.substr(36, 16);
  const std::string_view flags = h.substr(53, 2);
  if (!valid_hex_id(trace_id, 32) || !valid_hex_id(span_id, 16) || !all_lower_hex(flags)) return std::nullopt;
  const int flag_bits = std::stoi(std::string(flags), nullptr, 16);
  return TraceContext{std::string(trace_id), std::string(span_id), (flag_bits & 0x01) != 0};
}

}  // namespace kaisha::telemetry
