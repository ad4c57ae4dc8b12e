#include "runtime/llm/wire_util.hpp"

#include <limits>

#include "runtime/core/utf8.hpp"
#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::llm::wire {

Error error(std::string_view dialect, std::string_view message) {
  return Error{"llm", std::string(dialect) + ": " + std::string(message)};
}

json parse_text(std::string_view text) {
  if (utf8::valid(text)) return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  return json::parse(utf8::repair(text), nullptr, /*allow_exceptions=*/false);
}

Result<json> parse_object(std::string_view dialect, std::string_view body, std::string_view what) {
  json j = parse_text(body);
  if (j.is_discarded()) return error(dialect, std::string(what) + " is not valid JSON: " + excerpt(body));
  if (!j.is_object()) return error(dialect, std::string(what) + " is not a JSON object: " + excerpt(body));
  return j;
}

const json* member(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string str(const json& j, const char* key) {
  const json* m = member(j, key);
  return m && m->is_string() ? m->get<std::string>() : std::string();
}

int64_t integer(const json& j, const char* key, int64_t fallback) {
  const json* m = member(j, key);
  if (!m || !m->is_number()) return fallback;
  return as_int64(*m);
}

int64_t as_int64(const json& number) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (number.is_number_unsigned())
    return number.get<uint64_t>() > static_cast<uint64_t>(kMax) ? kMax : number.get<int64_t>();
  if (number.is_number_integer()) return number.get<int64_t>();
  if (!number.is_number_float()) return 0;
  const double d = number.get<double>();
  if (!(d > -9.2e18)) return std::numeric_limits<int64_t>::min();  // and NaN, which JSON cannot hold
  if (!(d < 9.2e18)) return kMax;
  return static_cast<int64_t>(d);
}

const json* array(const json& j, const char* key) {
  const json* m = member(j, key);
  return m && m->is_array() ? m : nullptr;
}

std::string text_of(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_string())
        out += part.get<std::string>();
      else
        out += str(part, "text");
    }
  }
  return out;
}

std::string args_from_wire(const json* v) {
  if (!v || v->is_null()) return "{}";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();
}

json args_to_wire(const std::string& arguments) {
  if (arguments.empty()) return json::object();
  json j = json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded() && j.is_object()) return j;
  return arguments;
}

std::string join_url(std::string_view base_url, std::string_view path) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  return std::string(base_url) + std::string(path);
}

void add_endpoint_headers(HttpRequestSpec& spec, const Endpoint& ep) {
  for (const auto& [k, v] : ep.headers) spec.headers.emplace_back(k, v);
}

HttpRequestSpec json_post(const Endpoint& ep, std::string_view path, const json& body, const char* key_header,
                          std::string_view key_prefix, std::vector<std::pair<std::string, std::string>> extra) {
  HttpRequestSpec spec;
  spec.url = join_url(ep.base_url, path);
  spec.headers.emplace_back("Content-Type", "application/json");
  if (!ep.api_key.empty()) spec.headers.emplace_back(key_header, std::string(key_prefix) + ep.api_key);
  for (auto& h : extra) spec.headers.push_back(std::move(h));
  add_endpoint_headers(spec, ep);
  spec.body = body.dump();
  return spec;
}

std::string tool_name_for(const std::vector<ChatMessage>& messages, size_t before, const std::string& id) {
  for (size_t i = std::min(before, messages.size()); i-- > 0;) {
    for (const auto& c : messages[i].tool_calls)
      if (c.id == id) return c.name;
  }
  return {};
}

void resolve_tool_names(std::vector<ChatMessage>& messages) {
  for (size_t i = 0; i < messages.size(); ++i) {
    auto& m = messages[i];
    if (m.role == Role::tool && m.name.empty() && !m.tool_call_id.empty())
      m.name = tool_name_for(messages, i, m.tool_call_id);
  }
}

std::string excerpt(std::string_view body) { return utf8::shorten(utf8::repair(body), 300, "..."); }

std::vector<std::string> pieces(std::string_view text, size_t size) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = std::min(text.size(), pos + size);
    // Do not end inside a UTF-8 sequence: back off continuation bytes.
    while (end < text.size() && end > pos + 1 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    out.emplace_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

void mark_estimated_usage(ChatResponse& resp) {
  resp.usage.estimated = true;
  resp.usage.input_tokens = 0;
  resp.usage.output_tokens = estimate_output_tokens(resp.message);
}

}  // namespace kaisha::llm::wire
