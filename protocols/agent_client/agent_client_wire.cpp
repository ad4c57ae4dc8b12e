#include "protocols/agent_client/agent_client_wire.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>

namespace kaisha::agent_client {
namespace {

Error bad(const std::string& what) { return Error{"invalid_params", what}; }

// The string member `key` of `o`: an error naming it when it is missing or not a string.
Result<std::string> string_at(const json& o, const char* key, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end()) return bad(where + ": '" + key + "' is missing");
  if (!it->is_string()) return bad(where + ": '" + key + "' must be a string, not " + it->type_name());
  return it->get<std::string>();
}

std::string optional_string(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

// MCP server names become config names ([A-Za-z0-9_-]+).
std::string server_name(const std::string& name, size_t i) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "editor_" + std::to_string(i) : out;
}

// name/value pairs ([{name, value}]) as a map; an error naming the entry.
Result<std::map<std::string, std::string>> pairs(const json& list, const std::string& where) {
  std::map<std::string, std::string> out;
  if (list.is_null()) return out;
  if (!list.is_array()) return bad(where + " must be an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!list[i].is_object()) return bad(at + " must be an object");
    auto name = string_at(list[i], "name", at);
    if (!name) return name.error();
    auto value = string_at(list[i], "value", at);
    if (!value) return value.error();
    out[*name] = *value;
  }
  return out;
}

Result<std::vector<config::McpServerConfig>> mcp_servers(const json& p) {
  std::vector<config::McpServerConfig> out;
  auto it = p.find("mcpServers");
  if (it == p.end() || it->is_null()) return out;
  if (!it->is_array()) return bad("mcpServers must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& s = (*it)[i];
    const std::string at = "mcpServers[" + std::to_string(i) + "]";
    if (!s.is_object()) return bad(at + " must be an object");
    auto name = string_at(s, "name", at);
    if (!name) return name.error();
    config::McpServerConfig c;
    c.name = server_name(*name, i);
    c.tool_prefix = c.name + "__";  // as for a server of the config: its tools are <name>__<tool>
    c.where = "the editor's " + at;
    const std::string type = optional_string(s, "type");
    if (type == "http") {
      auto url = string_at(s, "url", at);
      if (!url) return url.error();
      if (url->empty()) return bad(at + ".url is empty");
      c.url = *url;
      auto headers = pairs(s.value("headers", json()), at + ".headers");
      if (!headers) return headers.error();
      c.headers = std::move(*headers);
    } else if (type.empty() || type == "stdio") {
      auto command = string_at(s, "command", at);
      if (!command) return command.error();
      if (command->empty()) return bad(at + ".command is empty");
      c.command = *command;
      const json args = s.value("args", json::array());
      if (!args.is_array()) return bad(at + ".args must be an array");
      for (const auto& a : args) {
        if (!a.is_string()) return bad(at + ".args must hold strings");
        c.args.push_back(a.get<std::string>());
      }
      auto env = pairs(s.value("env", json()), at + ".env");
      if (!env) return env.error();
      c.env = std::move(*env);
    } else {
      return bad(at + ": MCP over '" + type + "' is not supported (kaisha connects stdio and http servers)");
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<SessionParams> session_params(const json& p, bool load) {
  if (!p.is_object()) return bad("params must be an object");
  SessionParams out;
  if (load) {
    auto id = string_at(p, "sessionId", "params");
    if (!id) return id.error();
    out.session_id = *id;
  }
  auto cwd = string_at(p, "cwd", "params");
  if (!cwd) return cwd.error();
  if (!std::filesystem::path(*cwd).is_absolute()) return bad("params.cwd must be an absolute path, not '" + *cwd + "'");
  out.cwd = *cwd;
  auto servers = mcp_servers(p);
  if (!servers) return servers.error();
  out.mcp_servers = std::move(*servers);
  return out;
}

}  // namespace

Incoming decode_line(std::string_view line, size_t max_depth) {
  jsonrpc::Limits limits;
  limits.body.max_bytes = std::numeric_limits<size_t>::max();  // the line reader bounds lines
  limits.body.max_depth = max_depth;
  jsonrpc::ParsedBody parsed = jsonrpc::parse_body(line, limits);
  if (parsed.batch)
    return jsonrpc::make_error(nullptr, jsonrpc::code::kInvalidRequest,
                               "Invalid Request: the Agent Client Protocol has no batches (a JSON array)");
  if (parsed.messages.size() != 1)
    return jsonrpc::make_error(nullptr, jsonrpc::code::kInvalidRequest, "Invalid Request: not one message");
  return std::move(parsed.messages.front());
}

Result<InitializeParams> parse_initialize(const json& p) {
  if (!p.is_object()) return bad("params must be an object");
  auto v = p.find("protocolVersion");
  if (v == p.end()) return bad("params: 'protocolVersion' is missing");
  if (!v->is_number_integer() || v->get<int64_t>() < 0 || v->get<int64_t>() > 65535)
    return bad("params.protocolVersion must be an integer from 0 to 65535");
  InitializeParams out;
  out.protocol_version = v->get<int>();
  // Capabilities fall back to "none" when malformed, as the schema says
  // (x-deserialize-default-on-error).
  const json caps = p.value("clientCapabilities", json::object());
  if (caps.is_object()) {
    const json fs = caps.value("fs", json::object());
    if (fs.is_object()) {
      out.capabilities.read_text_file = flag(fs, "readTextFile");
      out.capabilities.write_text_file = flag(fs, "writeTextFile");
    }
    out.capabilities.terminal = flag(caps, "terminal");
  }
  const json info = p.value("clientInfo", json());
  if (info.is_object()) out.client_name = optional_string(info, "name");
  return out;
}

Result<SessionParams> parse_new_session(const json& p) { return session_params(p, false); }
Result<SessionParams> parse_load_session(const json& p) { return session_params(p, true); }

Result<std::string> parse_session_id(const json& p) {
  if (!p.is_object()) return bad("params must be an object");
  return string_at(p, "sessionId", "params");
}

Result<PromptParams> parse_prompt(const json& p) {
  auto id = parse_session_id(p);
  if (!id) return id.error();
  PromptParams out;
  out.session_id = *id;
  auto blocks = p.find("prompt");
  if (blocks == p.end() || !blocks->is_array()) return bad("params.prompt must be an array of content blocks");
  for (size_t i = 0; i < blocks->size(); ++i) {
    const json& b = (*blocks)[i];
    const std::string at = "params.prompt[" + std::to_string(i) + "]";
    if (!b.is_object()) return bad(at + " must be an object");
    auto type = string_at(b, "type", at);
    if (!type) return type.error();
    std::string piece;
    if (*type == "text") {
      auto text = string_at(b, "text", at);
      if (!text) return text.error();
      piece = *text;
    } else if (*type == "resource_link") {
      auto uri = string_at(b, "uri", at);
      if (!uri) return uri.error();
      auto name = string_at(b, "name", at);
      if (!name) return name.error();
      piece = "[resource " + *name + ": " + *uri + "]";
    } else if (*type == "resource") {
      const json r = b.value("resource", json());
      if (!r.is_object()) return bad(at + ".resource must be an object");
      auto uri = string_at(r, "uri", at + ".resource");
      if (!uri) return uri.error();
      if (!r.contains("text"))
        return bad(at + ".resource: binary (blob) resources are not supported; send text or a resource_link");
      auto text = string_at(r, "text", at + ".resource");
      if (!text) return text.error();
      piece = "[resource " + *uri + "]\n" + *text + "\n[end of " + *uri + "]";
    } else if (*type == "image" || *type == "audio") {
      return bad(at + ": " + *type + " content is not supported (kaisha's prompt capabilities offer none)");
    } else {
      return bad(at + ": unknown content type '" + *type + "'");
    }
    if (!out.text.empty()) out.text += "\n\n";
    out.text += piece;
  }
  if (out.text.empty()) return bad("params.prompt holds no content");
  return out;
}

PermissionAnswer parse_permission_outcome(const json& result) {
  if (!result.is_object()) return PermissionAnswer::denied;
  const json o = result.value("outcome", json());
  if (!o.is_object()) return PermissionAnswer::denied;
  const std::string outcome = optional_string(o, "outcome");
  if (outcome == "cancelled") return PermissionAnswer::cancelled;
  if (outcome == "selected" && optional_string(o, "optionId") == kAllowOption) return PermissionAnswer::allowed;
  if (outcome == "selected" && optional_string(o, "optionId") == kAllowAlwaysOption)
    return PermissionAnswer::allowed_always;
  return PermissionAnswer::denied;
}

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::end_turn:
      return "end_turn";
    case StopReason::max_tokens:
      return "max_tokens";
    case StopReason::max_turn_requests:
      return "max_turn_requests";
    case StopReason::refusal:
      return "refusal";
    case StopReason::cancelled:
      return "cancelled";
  }
  return "end_turn";
}

std::string tool_kind(const std::string& tool) {
  if (tool == "ReadFile" || tool == "ListFiles" || tool == "file_read" || tool == "dir_list") return "read";
  if (tool == "WriteFile" || tool == "file_write" || tool == "dir_create") return "edit";
  if (tool == "file_move") return "move";
  if (tool == "PythonSandboxTool" || tool == "execute_code" || tool == "execute_shell" || tool == "pip_install" ||
      tool == "hiva.agent_tool" || tool == "hiva.validate_tool")
    return "execute";
  if (tool == "GetWebsite") return "fetch";
  if (tool == "GoogleSearchTool" || tool == "web_search") return "search";
  if (tool == "Calculator") return "think";
  return "other";
}

json initialize_result(const std::string& version) {
  return json{{"protocolVersion", kProtocolVersion},
              {"agentCapabilities",
               {{"loadSession", true},
                {"promptCapabilities", {{"image", false}, {"audio", false}, {"embeddedContext", true}}},
                {"mcpCapabilities", {{"http", true}, {"sse", false}}}}},
              {"authMethods", json::array()},
              {"agentInfo", {{"name", "kaisha"}, {"title", "kaisha: a company of agents"}, {"version", version}}}};
}

json session_update(const std::string& session_id, json update) {
  return json{{"sessionId", session_id}, {"update", std::move(update)}};
}

json text_chunk(const std::string& kind, const std::string& text) {
  return json{{"sessionUpdate", kind}, {"content", {{"type", "text"}, {"text", text}}}};
}

json available_commands() {
  return json{
      {"sessionUpdate", "available_commands_update"},
      {"availableCommands",
       json::array({json{{"name", "budget"}, {"description", "Show this session's ledgers: expense and resource"}},
                    json{{"name", "raise"},
                         {"description", "Raise this session's budget, e.g. /raise expense 5"},
                         {"input", {{"hint", "expense USD | resource POINTS"}}}}})}};
}

json permission_request(const std::string& session_id, const std::string& tool_call_id, const std::string& tool,
                        const json& raw_input) {
  json call{{"toolCallId", tool_call_id}, {"title", tool}, {"kind", tool_kind(tool)}, {"status", "pending"}};
  if (!raw_input.is_null()) call["rawInput"] = raw_input;
  return json{
      {"sessionId", session_id},
      {"toolCall", std::move(call)},
      {"options", json::array({json{{"optionId", kAllowOption}, {"name", "Allow"}, {"kind", "allow_once"}},
                               json{{"optionId", kAllowAlwaysOption},
                                    {"name", "Always allow " + tool + " in this session"},
                                    {"kind", "allow_always"}},
                               json{{"optionId", kRejectOption}, {"name", "Reject"}, {"kind", "reject_once"}}})}};
}

json usage_update(int64_t used, int64_t size, double session_usd) {
  return json{{"sessionUpdate", "usage_update"},
              {"used", std::max<int64_t>(0, used)},
              {"size", std::max<int64_t>(0, size)},
              {"cost", {{"amount", session_usd}, {"currency", "USD"}}}};
}

}  // namespace kaisha::agent_client
