#include "protocols/mcp/wire/mcp_revision.hpp"

#include "protocols/mcp/wire/mcp_headers.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::mcp {

namespace {

const json* meta_of(const jsonrpc::Request& r) {
  if (!r.params.is_object()) return nullptr;
  auto it = r.params.find("_meta");
  return it == r.params.end() ? nullptr : &*it;
}

// Methods that exist only in the modern era: a request for one is modern
// even when it forgot its _meta (and is then told so).
bool modern_only(const std::string& method) { return method == "server/discover" || method == "subscriptions/listen"; }

// The body value Mcp-Name mirrors (SEP-2243), when the method has one.
std::optional<std::string> name_source(const jsonrpc::Request& r) {
  const char* field = nullptr;
  if (r.method == "tools/call" || r.method == "prompts/get")
    field = "name";
  else if (r.method == "resources/read")
    field = "uri";
  // The tasks extension routes a task's requests by its id.
  else if (r.method == "tasks/get" || r.method == "tasks/update" || r.method == "tasks/cancel")
    field = "taskId";
  if (!field || !r.params.is_object()) return std::nullopt;
  auto it = r.params.find(field);
  if (it == r.params.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

Rejection reject(int code, std::string message, json data = nullptr) {
  return Rejection{400, code, std::move(message), std::move(data)};
}

std::string shown(const std::string& s) { return "'" + utf8::shorten(utf8::repair(s), 200) + "'"; }

}  // namespace

Era era_of(const jsonrpc::Request& r, const RequestEnvelope& env) {
  if (env.http && env.has_session) return Era::kLegacy;
  if (modern_only(r.method)) return Era::kModern;
  if (const json* meta = meta_of(r); meta && meta->is_object() && meta->contains(meta_key::kProtocolVersion))
    return Era::kModern;
  if (env.version_header && !is_legacy_version(*env.version_header)) return Era::kModern;
  return Era::kLegacy;
}

std::variant<ModernRequest, Rejection> read_modern_request(const jsonrpc::Request& r, const RequestEnvelope& env) {
  if (env.http && !env.version_header)
    return reject(kHeaderMismatch,
                  "Header mismatch: the MCP-Protocol-Version header is missing (a request with "
                  "_meta '" +
                      std::string(meta_key::kProtocolVersion) + "' must send it too)");

  // _meta and its required fields: malformed params (-32602).
  const json* meta = meta_of(r);
  if (!meta)
    return reject(jsonrpc::code::kInvalidParams,
                  "Invalid params: params._meta is missing; a " + std::string(kModernVersion) + " request carries '" +
                      meta_key::kProtocolVersion + "' and '" + meta_key::kClientCapabilities + "' in params._meta");
  if (!meta->is_object())
    return reject(jsonrpc::code::kInvalidParams, "Invalid params: params._meta must be an object");
  auto version = meta->find(meta_key::kProtocolVersion);
  if (version == meta->end() || !version->is_string() || version->get<std::string>().empty())
    return reject(jsonrpc::code::kInvalidParams, std::string("Invalid params: params._meta['") +
                                                     meta_key::kProtocolVersion + "'] must be a non-empty string");
  auto caps = meta->find(meta_key::kClientCapabilities);
  if (caps == meta->end() || !caps->is_object())
    return reject(jsonrpc::code::kInvalidParams, std::string("Invalid params: params._meta['") +
                                                     meta_key::kClientCapabilities +
                                                     "'] must be an object (empty when the client has none)");
  ModernRequest out;
  out.version = version->get<std::string>();
  out.client_capabilities = *caps;
  if (auto info = meta->find(meta_key::kClientInfo); info != meta->end()) {
    if (!info->is_object())
      return reject(jsonrpc::code::kInvalidParams,
                    std::string("Invalid params: params._meta['") + meta_key::kClientInfo + "'] must be an object");
    out.client_info = *info;
  }
  if (auto level = meta->find(meta_key::kLogLevel); level != meta->end()) {
    auto rank = level->is_string() ? log_level_rank(level->get<std::string>()) : std::nullopt;
    if (!rank)
      return reject(jsonrpc::code::kInvalidParams,
                    std::string("Invalid params: params._meta['") + meta_key::kLogLevel + "'] is " + level->dump() +
                        "; expected debug, info, notice, warning, error, critical, alert or emergency");
    out.min_log_rank = *rank;
  }

  // Headers mirror the body (HTTP only): missing or different is -32020.
  if (env.http) {
    if (*env.version_header != out.version)
      return reject(kHeaderMismatch, "Header mismatch: MCP-Protocol-Version header " + shown(*env.version_header) +
                                         " does not match params._meta['" + meta_key::kProtocolVersion + "'] " +
                                         shown(out.version));
    if (!env.method_header)
      return reject(kHeaderMismatch, "Header mismatch: the Mcp-Method header is missing (it must name the method, " +
                                         shown(r.method) + ")");
    if (*env.method_header != r.method)
      return reject(kHeaderMismatch, "Header mismatch: Mcp-Method header " + shown(*env.method_header) +
                                         " does not match the body's method " + shown(r.method));
    if (auto expected = name_source(r)) {
      if (!env.name_header)
        return reject(kHeaderMismatch, "Header mismatch: the Mcp-Name header is missing (" + r.method +
                                           " must name its target, " + shown(*expected) + ")");
      auto decoded = decode_header_value(*env.name_header);
      if (!decoded)
        return reject(kHeaderMismatch, "Header mismatch: Mcp-Name header " + shown(*env.name_header) +
                                           " is not valid (broken =?base64?...?= encoding or not UTF-8)");
      if (*decoded != *expected)
        return reject(kHeaderMismatch, "Header mismatch: Mcp-Name header value " + shown(*decoded) +
                                           " does not match body value " + shown(*expected));
    }
  }

  if (!is_modern_version(out.version)) {
    json supported = json::array();
    for (const auto& v : modern_versions()) supported.push_back(v);
    return reject(kUnsupportedProtocolVersion,
                  "Unsupported protocol version " + shown(out.version) + "; this server serves " + supported.dump() +
                      " per request, and the legacy revisions after an initialize",
                  json{{"supported", supported}, {"requested", out.version}});
  }
  return out;
}

int modern_http_status(int code) {
  switch (code) {
    case jsonrpc::code::kMethodNotFound:
      return 404;
    case kHeaderMismatch:
    case kMissingRequiredClientCapability:
    case kUnsupportedProtocolVersion:
    case jsonrpc::code::kParseError:
    case jsonrpc::code::kInvalidRequest:
      return 400;
    default:
      return 200;
  }
}

}  // namespace kaisha::mcp
