#include "runtime/halo/replies/reply_json.hpp"

#include <cstdio>

#include "runtime/core/params_check.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/prompt/json_extract.hpp"

namespace kaisha::halo::reply {
namespace {

constexpr size_t kQuoteBytes = 80;  // enough to recognise a value in the journal
constexpr size_t kKeysListed = 6;
constexpr size_t kFindingsListed = 8;

std::string_view trim_front(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || (s.front() >= '\t' && s.front() <= '\r'))) s.remove_prefix(1);
  return s;
}

// Where the object holding `"key":` starts: the last such key, and the
// nearest '{' before it. Each search resumes where the previous one
// stopped, so the scan stays linear however often the key is quoted.
std::optional<size_t> object_around_key(std::string_view text, std::string_view key) {
  std::string needle = "\"" + std::string(key) + "\"";
  for (size_t at = text.size(); at > 0;) {
    size_t hit = text.rfind(needle, at - 1);
    if (hit == std::string_view::npos) return std::nullopt;
    size_t after = hit + needle.size();
    while (after < text.size() && (text[after] == ' ' || (text[after] >= '\t' && text[after] <= '\r'))) ++after;
    if (after < text.size() && text[after] == ':') {
      size_t brace = text.rfind('{', hit);
      if (brace == std::string_view::npos) return std::nullopt;
      return brace;
    }
    at = hit;
  }
  return std::nullopt;
}

bool holds(const Result<json>& r, std::string_view key) {
  return r.ok() && r->is_object() && r->contains(std::string(key));
}

}  // namespace

std::optional<size_t> invalid_utf8_at(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    utf8::Decoded d = utf8::decode(text.substr(i));
    if (!d.ok) return i + 1;
    i += d.length;
  }
  return std::nullopt;
}

Result<json> object(std::string_view text, std::string_view key) {
  if (std::optional<size_t> bad = invalid_utf8_at(text)) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[*bad - 1]));
    return Error{"reply", "invalid UTF-8 at byte " + std::to_string(*bad) + " (" + hex + ")"};
  }
  Result<json> first = planning::extract_json(text, planning::JsonTop::object);
  if (holds(first, key)) return first;
  if (std::optional<size_t> brace = object_around_key(text, key)) {
    Result<json> around = planning::extract_json(text.substr(*brace), planning::JsonTop::object);
    if (holds(around, key)) return around;
  }
  if (first.ok()) return first;  // an object without the key: the caller says which key is missing
  if (trim_front(text).starts_with('['))
    return Error{"reply", "the reply is a JSON array, expected an object with key \"" + std::string(key) + "\""};
  return Error{"reply", first.error().message};
}

std::string kind(const json& value) { return json_kind(value, JsonIntegers::as_numbers); }

std::string in_quotes(std::string_view value) { return "\"" + utf8::shorten(value, kQuoteBytes) + "\""; }

std::string missing(const json& object, std::string_view key) {
  std::string out = "key \"" + std::string(key) + "\" is missing";
  if (!object.is_object() || object.empty()) return out + " (the object is empty)";
  out += " (the object has ";
  size_t listed = 0;
  for (auto it = object.begin(); it != object.end() && listed < kKeysListed; ++it, ++listed)
    out += (listed ? ", " : "") + in_quotes(it.key());
  if (object.size() > kKeysListed) out += ", ...";
  return out + ")";
}

std::optional<std::string> Problems::text() const {
  if (found_.empty()) return std::nullopt;
  std::string out = who_ + " reply: ";
  for (size_t i = 0; i < found_.size() && i < kFindingsListed; ++i) out += (i ? "; " : "") + found_[i];
  if (found_.size() > kFindingsListed) out += "; and " + std::to_string(found_.size() - kFindingsListed) + " more";
  return out;
}

}  // namespace kaisha::halo::reply
