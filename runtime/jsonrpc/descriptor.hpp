// CapabilityDescriptor: the one internal description of something a peer can
// call — a tool, an agent or a skill — and its conversions to and from each
// protocol's own description of it: MCP `Tool`, A2A `AgentSkill` (and the
// `AgentCard` that lists skills), ACP `AgentManifest`, and the model-facing
// llm::ToolSpec. Adapters hold descriptors; conversions happen at the edge.
//
// What each format carries (ψ = to_X, ψ⁻¹ = from_X; ψ⁻¹(ψ(τ)) == τ holds for
// every field listed as carried, and the tests check it):
//
//   field          MCP Tool            A2A AgentSkill        ACP AgentManifest        ToolSpec
//   kind           _meta io.kaisha/*   lost → skill          annotations.kaisha       lost → tool
//   name           name                id                    annotations.kaisha (*)   name
//   title          title               name (**)             annotations.kaisha       lost → ""
//   description    description         description           description              description
//   input_schema   inputSchema         card extension (***)  annotations.kaisha       parameters
//   output_schema  outputSchema        card extension (***)  annotations.kaisha       lost
//   tags           _meta io.kaisha/*   tags                  metadata.tags            lost
//   examples       _meta io.kaisha/*   examples              annotations.kaisha       lost
//   costs          _meta io.kaisha/*   card extension (***)  annotations.kaisha       lost
//   annotations    annotations         lost                  annotations.kaisha       lost
//   input_modes    _meta io.kaisha/*   inputModes            input_content_types      lost
//   output_modes   _meta io.kaisha/*   outputModes           output_content_types     lost
//
// (*)   ACP names are RFC 1123 DNS labels, so "AgentCreator" goes out as
//       "agent-creator"; the original name rides along and comes back.
// (**)  A2A's skill `name` is the human-readable one: it carries the title,
//       or the name when there is no title; coming back, a `name` equal to
//       the id means "no title". A title equal to the name is thus dropped.
// (***) A bare AgentSkill has no place for schemas or costs; an AgentCard
//       built by to_a2a_agent_card carries them in a card extension
//       (kA2aSchemaExtension) keyed by skill id, and skills_from_a2a_agent_card
//       restores them. A skill read without its card gets the defaults.
// Defaults for lost fields: empty strings and lists, input_schema
// {"type":"object"}, no output schema/costs/annotations. Empty mode lists
// go out as the protocol's required defaults (text/plain or
// application/json) and, having been defaulted, come back empty.
//
// Conversions from a peer's JSON never throw: a malformed description gives
// an Error (code "descriptor") saying which field is wrong.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::jsonrpc {

enum class CapabilityKind { tool, agent, skill };

std::string_view to_string(CapabilityKind kind);
std::optional<CapabilityKind> capability_kind_from(std::string_view s);

struct CapabilityDescriptor {
  CapabilityKind kind = CapabilityKind::tool;
  std::string name;   // stable identifier, what callers address
  std::string title;  // human-readable display name; may be empty
  std::string description;
  json input_schema = json{{"type", "object"}};  // JSON Schema of the arguments
  std::optional<json> output_schema;             // JSON Schema of a structured result
  std::vector<std::string> tags;
  std::vector<std::string> examples;     // example prompts or calls
  std::optional<json> costs;             // e.g. {"invoke": 0.01, "currency": "USD"}
  std::optional<json> annotations;       // MCP behaviour hints (readOnlyHint, ...)
  std::vector<std::string> input_modes;  // media types; empty = protocol default
  std::vector<std::string> output_modes;

  bool operator==(const CapabilityDescriptor&) const = default;
};

// ---- MCP (2025-11-25) Tool -------------------------------------------------
json to_mcp_tool(const CapabilityDescriptor& d);
Result<CapabilityDescriptor> from_mcp_tool(const json& tool);

// ---- A2A AgentSkill and AgentCard (v1.0, with v0.3 fields) -----------------
inline constexpr std::string_view kA2aSchemaExtension = "https://kaisha.dev/a2a/ext/skill-schemas/v1";

json to_a2a_skill(const CapabilityDescriptor& d);
// `kind` is what the skill stands for on our side: A2A cannot say.
Result<CapabilityDescriptor> from_a2a_skill(const json& skill, CapabilityKind kind = CapabilityKind::skill);

struct AgentCardInfo {
  std::string name;
  std::string description;
  std::string url;      // the JSON-RPC endpoint
  std::string version;  // the agent's own version, e.g. "0.1.0"
  bool streaming = false;
  bool v03_interface = true;  // also list a v0.3 entry in supportedInterfaces
  bool v03_fields = false;    // add the v0.3 top-level fields (for v0.3 clients only)
  std::vector<std::string> default_input_modes{"text/plain"};
  std::vector<std::string> default_output_modes{"text/plain"};
  std::string provider_organization;  // omitted when empty
};

// An AgentCard: v1.0 fields (supportedInterfaces with protocolVersion "1.0",
// capabilities, skills, default modes), valid against the v1.0 schema, which
// allows no other top-level field. With v03_interface, supportedInterfaces
// also lists the endpoint for protocolVersion "0.3" (still a valid v1.0
// card). With v03_fields, the v0.3 top-level url / preferredTransport /
// protocolVersion "0.3.0" are added: a card for v0.3 clients only.
json to_a2a_agent_card(const AgentCardInfo& info, const std::vector<CapabilityDescriptor>& skills);
// The skills of a card, schemas and costs restored from our extension.
Result<std::vector<CapabilityDescriptor>> skills_from_a2a_agent_card(const json& card);

// ---- ACP (0.2.0) AgentManifest ---------------------------------------------
// `name` mapped to an RFC 1123 DNS label (lowercase, '-' at case changes and
// for other characters, at most 63 characters).
std::string acp_agent_name(std::string_view name);
json to_acp_manifest(const CapabilityDescriptor& d);
Result<CapabilityDescriptor> from_acp_manifest(const json& manifest);

// ---- llm::ToolSpec ---------------------------------------------------------
llm::ToolSpec to_tool_spec(const CapabilityDescriptor& d);
CapabilityDescriptor from_tool_spec(const llm::ToolSpec& spec);

}  // namespace kaisha::jsonrpc
