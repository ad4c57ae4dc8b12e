#include "protocols/mcp/wire/mcp_headers.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::mcp {

namespace {

constexpr std::string_view kSentinelStart = "=?base64?";
constexpr std::string_view kSentinelEnd = "?=";

bool is_sentinel(std::string_view v) {
  return v.size() >= kSentinelStart.size() + kSentinelEnd.size() &&
         v.substr(0, kSentinelStart.size()) == kSentinelStart &&
         v.substr(v.size() - kSentinelEnd.size()) == kSentinelEnd;
}

// RFC 9110 field values: visible ASCII, space and tab.
bool header_safe(std::string_view v) {
  return std::all_of(v.begin(), v.end(),
                     [](unsigned char c) { return c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7E); });
}

bool base64_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/'; }

// RFC 9110 token characters (header field names).
bool tchar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

Rejection mismatch(std::string message) { return Rejection{400, kHeaderMismatch, std::move(message), nullptr}; }

Error invalid_tool(std::string message) { return Error{"invalid_tool", std::move(message)}; }

std::string path_text(const std::vector<std::string>& path) {
  std::string out = "arguments";
  for (const auto& p : path) out += "." + p;
  return out;
}

// Collects annotations reachable through "properties" chains.
Status collect(const json& schema, std::vector<std::string>& path, std::vector<HeaderParam>& out) {
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return {};
  for (auto it = props->begin(); it != props->end(); ++it) {
    if (!it->is_object()) continue;
    path.push_back(it.key());
    if (auto h = it->find("x-mcp-header"); h != it->end()) {
      if (!h->is_string() || h->get<std::string>().empty())
        return invalid_tool("x-mcp-header of " + path_text(path) + " must be a non-empty string");
      const std::string name = h->get<std::string>();
      if (!std::all_of(name.begin(), name.end(), tchar))
        return invalid_tool("x-mcp-header '" + utf8::repair(name) + "' of " + path_text(path) +
                            " is not an HTTP header token");
      const std::string type = it->value("type", json()).is_string() ? (*it)["type"].get<std::string>() : "";
      if (type != "string" && type != "integer" && type != "boolean")
        return invalid_tool("x-mcp-header '" + name + "' is on " + path_text(path) +
                            ", whose type is not string, integer or boolean");
      out.push_back(HeaderParam{name, path});
    }
    if (auto st = collect(*it, path, out); !st) return st;
    path.pop_back();
  }
  return {};
}

// Every annotation anywhere in the schema.
size_t count_all(const json& v) {
  size_t n = 0;
  if (v.is_object()) {
    if (v.contains("x-mcp-header")) ++n;
    for (const auto& [_, child] : v.items()) n += count_all(child);
  } else if (v.is_array()) {
    for (const auto& child : v) n += count_all(child);
  }
  return n;
}

}  // namespace

std::optional<std::string> decode_header_value(const std::string& value) {
  if (!header_safe(value)) return std::nullopt;
  if (!is_sentinel(value)) return value;
  const std::string b64 =
      value.substr(kSentinelStart.size(), value.size() - kSentinelStart.size() - kSentinelEnd.size());
  if (b64.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  for (size_t i = 0; i < b64.size(); ++i) {
    if (b64[i] == '=') {
      if (i + 2 < b64.size()) return std::nullopt;  // '=' only in the last two places
      ++pad;
    } else if (pad > 0 || !base64_char(b64[i])) {
      return std::nullopt;
    }
  }
  std::string out(b64.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(b64.data()), static_cast<int>(b64.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<size_t>(n) - pad);
  if (!utf8::valid(out)) return std::nullopt;
  return out;
}

std::string encode_header_value(const std::string& value) {
  const bool plain =
      header_safe(value) && !is_sentinel(value) &&
      (value.empty() || (value.front() != ' ' && value.front() != '\t' && value.back() != ' ' && value.back() != '\t'));
  if (plain) return value;
  std::string out(4 * ((value.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(value.data()), static_cast<int>(value.size()));
  out.resize(static_cast<size_t>(n));
  return std::string(kSentinelStart) + out + std::string(kSentinelEnd);
}

Result<std::vector<HeaderParam>> header_params(const json& input_schema) {
  std::vector<HeaderParam> out;
  if (!input_schema.is_object()) return out;
  std::vector<std::string> path;
  if (auto st = collect(input_schema, path, out); !st) return st.error();
  if (out.size() != count_all(input_schema))
    return invalid_tool(
        "an x-mcp-header annotation is reachable only through items, a composition or "
        "conditional keyword or $ref; it must sit on a chain of 'properties'");
  std::set<std::string> seen;
  for (const auto& p : out)
    if (!seen.insert(ascii_lower(p.header)).second)
      return invalid_tool("x-mcp-header '" + p.header + "' is used twice (names compare without case)");
  return out;
}

std::optional<std::string> header_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return value.dump();
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9007199254740992.0)
      return std::to_string(static_cast<int64_t>(d));
  }
  return std::nullopt;
}

const json* value_at(const json& arguments, const std::vector<std::string>& path) {
  const json* at = &arguments;
  for (const auto& key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

std::optional<Rejection> check_param_headers(const json& input_schema, const json& arguments,
                                             const RequestEnvelope& env) {
  auto params = header_params(input_schema);
  if (!params) return std::nullopt;
  for (const auto& p : *params) {
    const json* value = value_at(arguments, p.path);
    if (!value || value->is_null()) continue;
    const std::string header = "Mcp-Param-" + p.header;
    auto sent = env.param_headers.find(ascii_lower(p.header));
    if (sent == env.param_headers.end())
      return mismatch("Header mismatch: the " + header + " header is missing while " + path_text(p.path) +
                      " carries a value");
    auto decoded = decode_header_value(sent->second);
    if (!decoded)
      return mismatch("Header mismatch: " + header +
                      " has characters a header may not carry or a broken "
                      "=?base64?...?= encoding");
    auto expected = header_text(*value);
    bool same = expected && *decoded == *expected;
    if (!same && value->is_number()) {  // 42.0 and 42 are the same integer
      char* end = nullptr;
      double d = std::strtod(decoded->c_str(), &end);
      same = end && *end == '\0' && !decoded->empty() && d == value->get<double>();
    }
    if (!same)
      return mismatch("Header mismatch: " + header + " header value '" + utf8::shorten(*decoded, 200) +
                      "' does not match " + path_text(p.path) + " = " +
                      utf8::shorten(value->dump(-1, ' ', false, json::error_handler_t::replace), 200));
  }
  return std::nullopt;
}

}  // namespace kaisha::mcp
