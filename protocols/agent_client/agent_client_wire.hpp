// The Agent Client Protocol's wire (v1, as @agentclientprotocol/sdk 2.4.0
// defines it): newline-delimited JSON-RPC 2.0 between an editor (the client:
// Zed, a JetBrains IDE, Neovim, Emacs) and kaisha (the agent) over stdio.
// This is the Zed-led protocol, not IBM's Agent Communication Protocol that
// `kaisha serve` offers at /acp (protocols/acp/).
//
// Pure: decoding one input line and the params of the methods kaisha
// answers, and building what kaisha sends (session/update notifications,
// session/request_permission, responses). Decoders never throw: bad input
// gives an Error whose message says which field was wrong.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config/mcp_server_config.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::agent_client {

// The protocol version kaisha speaks. A client asking for another gets this
// one back (the protocol's rule: the agent answers with the latest version it
// supports, and the client disconnects if it cannot speak it).
inline constexpr int kProtocolVersion = 1;

// ACP's own JSON-RPC error codes (besides JSON-RPC's -32700..-32603).
inline constexpr int kAuthRequired = -32000;
inline constexpr int kResourceNotFound = -32002;

// One decoded input line: a request or notification to dispatch, a response
// to one of kaisha's own requests, or the error response the line is owed
// (unparseable, not an object, a batch: ACP has no batches).
using Incoming = jsonrpc::Message;
Incoming decode_line(std::string_view line, size_t max_depth = 64);

// ---- what the client sends -------------------------------------------------

struct ClientCapabilities {
  bool read_text_file = false;   // fs/read_text_file
  bool write_text_file = false;  // fs/write_text_file
  bool terminal = false;         // terminal/*
};

struct InitializeParams {
  int protocol_version = 0;  // what the client asked for
  ClientCapabilities capabilities;
  std::string client_name;  // clientInfo.name, "" when absent
};
Result<InitializeParams> parse_initialize(const json& params);

// session/new and session/load: the editor's working directory (absolute)
// and the MCP servers it wants the agent to use, as kaisha configures them.
struct SessionParams {
  std::string session_id;  // session/load only
  std::string cwd;
  std::vector<config::McpServerConfig> mcp_servers;
};
Result<SessionParams> parse_new_session(const json& params);
Result<SessionParams> parse_load_session(const json& params);

// session/prompt: the content blocks as one text for the company. Text is
// kept as it is; an embedded text resource is added with its URI; a resource
// link is named with its URI (kaisha's file tools read it when needed).
// Images, audio and binary resources are refused (kaisha does not offer them
// in its prompt capabilities).
struct PromptParams {
  std::string session_id;
  std::string text;
};
Result<PromptParams> parse_prompt(const json& params);

// session/cancel and the sessionId of any other params.
Result<std::string> parse_session_id(const json& params);

// The answer to session/request_permission: allowed only when the client
// selected an option whose id kaisha offered as an allow option.
// allowed_always: allowed, and the same tool may run again in the session without asking.
enum class PermissionAnswer { allowed, allowed_always, denied, cancelled };
PermissionAnswer parse_permission_outcome(const json& result);

// ---- what kaisha sends -----------------------------------------------------

enum class StopReason { end_turn, max_tokens, max_turn_requests, refusal, cancelled };
const char* to_string(StopReason r);

// ToolKind of one of the company's tools (the built-ins, the pyramid's,
// HiVA's), for the editor's icon: read, edit, execute, fetch, search, think
// or other.
std::string tool_kind(const std::string& tool);

// The initialize response: kaisha's capabilities (loadSession, text and
// embedded-context prompts, MCP over stdio and HTTP) and no auth methods.
json initialize_result(const std::string& version);

// {"sessionId": ..., "update": update}: the params of a session/update.
json session_update(const std::string& session_id, json update);
// {"sessionUpdate": kind, "content": {"type": "text", "text": text}} for
// agent_message_chunk, agent_thought_chunk and user_message_chunk.
json text_chunk(const std::string& kind, const std::string& text);
// The slash commands kaisha offers in every session (available_commands_update).
json available_commands();

// The params of session/request_permission for tool call `tool_call_id`:
// allow once, allow `tool` for the rest of the session, or reject once.
json permission_request(const std::string& session_id, const std::string& tool_call_id, const std::string& tool,
                        const json& raw_input);

// A usage_update: `used` tokens in the CEO's context of `size`, and the
// session's expense so far in US dollars.
json usage_update(int64_t used, int64_t size, double session_usd);

inline constexpr const char* kAllowOption = "allow";
inline constexpr const char* kAllowAlwaysOption = "allow-always";
inline constexpr const char* kRejectOption = "reject";

}  // namespace kaisha::agent_client
