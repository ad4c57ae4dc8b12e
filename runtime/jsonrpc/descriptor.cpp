#include "runtime/jsonrpc/descriptor.hpp"

#include <cctype>
#include <utility>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::jsonrpc {
namespace {

// MCP reserves _meta keys whose prefix mentions modelcontextprotocol/mcp;
// a reverse-DNS prefix of our own keeps our fields clear of that.
constexpr const char* kMetaKind = "io.kaisha/kind";
constexpr const char* kMetaTags = "io.kaisha/tags";
constexpr const char* kMetaExamples = "io.kaisha/examples";
constexpr const char* kMetaCosts = "io.kaisha/costs";
constexpr const char* kMetaInputModes = "io.kaisha/inputModes";
constexpr const char* kMetaOutputModes = "io.kaisha/outputModes";

Error bad(const std::string& where, const std::string& what) { return Error{"descriptor", where + ": " + what}; }

// Reads an optional string member; false (with `error` set) when present
// but not a string.
bool read_string(const json& obj, const char* key, std::string& out, const std::string& where,
                 std::optional<Error>& error) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return true;
  if (!it->is_string()) {
    error = bad(where, "\"" + std::string(key) + "\" must be a string");
    return false;
  }
  out = it->get<std::string>();
  return true;
}

bool read_strings(const json& obj, const char* key, std::vector<std::string>& out, const std::string& where,
                  std::optional<Error>& error) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return true;
  if (!it->is_array()) {
    error = bad(where, "\"" + std::string(key) + "\" must be an array of strings");
    return false;
  }
  out.clear();
  for (const auto& s : *it) {
    if (!s.is_string()) {
      error = bad(where, "\"" + std::string(key) + "\" must contain only strings");
      return false;
    }
    out.push_back(s.get<std::string>());
  }
  return true;
}

bool read_schema(const json& obj, const char* key, json& out, const std::string& where, std::optional<Error>& error) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return true;
  if (!it->is_object()) {
    error = bad(where, "\"" + std::string(key) + "\" must be a JSON Schema object");
    return false;
  }
  out = *it;
  return true;
}

bool read_kind(const json& obj, const char* key, CapabilityKind& out, const std::string& where,
               std::optional<Error>& error) {
  std::string s;
  if (!read_string(obj, key, s, where, error)) return false;
  if (s.empty()) return true;
  auto k = capability_kind_from(s);
  if (!k) {
    error = bad(where, "unknown kind \"" + s + "\" (tool, agent or skill)");
    return false;
  }
  out = *k;
  return true;
}

json schema_or_default(const json& schema) { return schema.is_object() ? schema : json{{"type", "object"}}; }

Result<std::string> required_name(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return bad(where, "\"" + std::string(key) + "\" must be a non-empty string");
  }
  return it->get<std::string>();
}

// Per-skill fields A2A's AgentSkill has no place for; see kA2aSchemaExtension.
json skill_extras(const CapabilityDescriptor& d) {
  json x{{"kind", to_string(d.kind)}, {"inputSchema", d.input_schema}};
  if (d.output_schema) x["outputSchema"] = *d.output_schema;
  if (d.costs) x["costs"] = *d.costs;
  if (d.annotations) x["annotations"] = *d.annotations;
  return x;
}

bool apply_skill_extras(const json& x, CapabilityDescriptor& d, std::optional<Error>& error) {
  const std::string where = "A2A skill '" + d.name + "' extension";
  if (!x.is_object()) {
    error = bad(where, "must be an object");
    return false;
  }
  if (!read_kind(x, "kind", d.kind, where, error)) return false;
  if (!read_schema(x, "inputSchema", d.input_schema, where, error)) return false;
  json out;
  if (!read_schema(x, "outputSchema", out, where, error)) return false;
  if (!out.is_null()) d.output_schema = out;
  if (auto c = x.find("costs"); c != x.end() && !c->is_null()) d.costs = *c;
  if (auto a = x.find("annotations"); a != x.end() && !a->is_null()) d.annotations = *a;
  return true;
}

}  // namespace

std::string_view to_string(CapabilityKind kind) {
  switch (kind) {
    case CapabilityKind::tool:
      return "tool";
    case CapabilityKind::agent:
      return "agent";
    case CapabilityKind::skill:
      return "skill";
  }
  return "tool";
}

std::optional<CapabilityKind> capability_kind_from(std::string_view s) {
  if (s == "tool") return CapabilityKind::tool;
  if (s == "agent") return CapabilityKind::agent;
  if (s == "skill") return CapabilityKind::skill;
  return std::nullopt;
}

// ---- MCP --------------------------------------------------------------------

json to_mcp_tool(const CapabilityDescriptor& d) {
  json t{{"name", d.name}, {"inputSchema", schema_or_default(d.input_schema)}};
  if (!d.title.empty()) t["title"] = d.title;
  if (!d.description.empty()) t["description"] = d.description;
  if (d.output_schema) t["outputSchema"] = *d.output_schema;
  if (d.annotations) t["annotations"] = *d.annotations;
  json meta = json::object();
  if (d.kind != CapabilityKind::tool) meta[kMetaKind] = to_string(d.kind);
  if (!d.tags.empty()) meta[kMetaTags] = d.tags;
  if (!d.examples.empty()) meta[kMetaExamples] = d.examples;
  if (d.costs) meta[kMetaCosts] = *d.costs;
  if (!d.input_modes.empty()) meta[kMetaInputModes] = d.input_modes;
  if (!d.output_modes.empty()) meta[kMetaOutputModes] = d.output_modes;
  if (!meta.empty()) t["_meta"] = std::move(meta);
  return t;
}

Result<CapabilityDescriptor> from_mcp_tool(const json& tool) {
  if (!tool.is_object()) return bad("MCP tool", "must be an object");
  auto name = required_name(tool, "name", "MCP tool");
  if (!name.ok()) return name.error();
  CapabilityDescriptor d;
  d.name = std::move(name.value());
  const std::string where = "MCP tool '" + d.name + "'";
  std::optional<Error> e;
  json out;
  if (!read_string(tool, "title", d.title, where, e) || !read_string(tool, "description", d.description, where, e) ||
      !read_schema(tool, "inputSchema", d.input_schema, where, e) ||
      !read_schema(tool, "outputSchema", out, where, e)) {
    return *e;
  }
  if (!out.is_null()) d.output_schema = out;
  if (auto a = tool.find("annotations"); a != tool.end() && !a->is_null()) {
    if (!a->is_object()) return bad(where, "\"annotations\" must be an object");
    d.annotations = *a;
  }
  if (auto m = tool.find("_meta"); m != tool.end() && m->is_object()) {
    if (!read_kind(*m, kMetaKind, d.kind, where, e) || !read_strings(*m, kMetaTags, d.tags, where, e) ||
        !read_strings(*m, kMetaExamples, d.examples, where, e) ||
        !read_strings(*m, kMetaInputModes, d.input_modes, where, e) ||
        !read_strings(*m, kMetaOutputModes, d.output_modes, where, e)) {
      return *e;
    }
    if (auto c = m->find(kMetaCosts); c != m->end() && !c->is_null()) d.costs = *c;
  }
  return d;
}

// ---- A2A --------------------------------------------------------------------

json to_a2a_skill(const CapabilityDescriptor& d) {
  json s{
      {"id", d.name}, {"name", d.title.empty() ? d.name : d.title}, {"description", d.description}, {"tags", d.tags}};
  if (!d.examples.empty()) s["examples"] = d.examples;
  if (!d.input_modes.empty()) s["inputModes"] = d.input_modes;
  if (!d.output_modes.empty()) s["outputModes"] = d.output_modes;
  return s;
}

Result<CapabilityDescriptor> from_a2a_skill(const json& skill, CapabilityKind kind) {
  if (!skill.is_object()) return bad("A2A skill", "must be an object");
  auto id = required_name(skill, "id", "A2A skill");
  if (!id.ok()) return id.error();
  CapabilityDescriptor d;
  d.kind = kind;
  d.name = std::move(id.value());
  const std::string where = "A2A skill '" + d.name + "'";
  std::optional<Error> e;
  std::string display;
  if (!read_string(skill, "name", display, where, e) || !read_string(skill, "description", d.description, where, e) ||
      !read_strings(skill, "tags", d.tags, where, e) || !read_strings(skill, "examples", d.examples, where, e) ||
      !read_strings(skill, "inputModes", d.input_modes, where, e) ||
      !read_strings(skill, "outputModes", d.output_modes, where, e)) {
    return *e;
  }
  if (display != d.name) d.title = display;
  return d;
}

json to_a2a_agent_card(const AgentCardInfo& info, const std::vector<CapabilityDescriptor>& skills) {
  json interfaces = json::array();
  interfaces.push_back({{"url", info.url}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "1.0"}, {"tenant", ""}});
  if (info.v03_interface) {
    interfaces.push_back(
        {{"url", info.url}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", "0.3"}, {"tenant", ""}});
  }
  json skill_list = json::array();
  json extras = json::object();
  for (const auto& d : skills) {
    skill_list.push_back(to_a2a_skill(d));
    extras[d.name] = skill_extras(d);
  }
  json extensions = json::array();
  if (!skills.empty()) {
    extensions.push_back({{"uri", kA2aSchemaExtension},
                          {"description", "JSON Schemas, costs and kind of each skill, by skill id"},
                          {"required", false},
                          {"params", {{"skills", std::move(extras)}}}});
  }
  json card{{"name", info.name},
            {"description", info.description},
            {"version", info.version},
            {"supportedInterfaces", std::move(interfaces)},
            {"capabilities",
             {{"streaming", info.streaming},
              {"pushNotifications", false},
              {"extendedAgentCard", false},
              {"extensions", std::move(extensions)}}},
            {"defaultInputModes", info.default_input_modes},
            {"defaultOutputModes", info.default_output_modes},
            {"skills", std::move(skill_list)}};
  if (!info.provider_organization.empty()) {
    card["provider"] = {{"organization", info.provider_organization}, {"url", info.url}};
  }
  if (info.v03_fields) {
    // v0.3 clients read the endpoint and version from the top level.
    card["url"] = info.url;
    card["preferredTransport"] = "JSONRPC";
    card["protocolVersion"] = "0.3.0";
  }
  return card;
}

Result<std::vector<CapabilityDescriptor>> skills_from_a2a_agent_card(const json& card) {
  if (!card.is_object()) return bad("A2A agent card", "must be an object");
  auto skills = card.find("skills");
  if (skills == card.end() || skills->is_null()) return std::vector<CapabilityDescriptor>{};
  if (!skills->is_array()) return bad("A2A agent card", "\"skills\" must be an array");

  const json* extras = nullptr;
  if (auto caps = card.find("capabilities"); caps != card.end() && caps->is_object()) {
    if (auto exts = caps->find("extensions"); exts != caps->end() && exts->is_array()) {
      for (const auto& x : *exts) {
        if (!x.is_object() || x.value("uri", json()) != json(kA2aSchemaExtension)) continue;
        auto p = x.find("params");
        if (p == x.end() || !p->is_object()) continue;
        auto s = p->find("skills");
        if (s != p->end() && s->is_object()) extras = &*s;
      }
    }
  }
  std::vector<CapabilityDescriptor> out;
  for (const auto& skill : *skills) {
    auto d = from_a2a_skill(skill);
    if (!d.ok()) return d.error();
    if (extras) {
      if (auto x = extras->find(d->name); x != extras->end()) {
        std::optional<Error> e;
        if (!apply_skill_extras(*x, *d, e)) return *e;
      }
    }
    out.push_back(std::move(d.value()));
  }
  return out;
}

// ---- ACP --------------------------------------------------------------------

std::string acp_agent_name(std::string_view name) {
  std::string out;
  auto dash = [&] {
    if (!out.empty() && out.back() != '-') out.push_back('-');
  };
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (std::isupper(c)) {
      // A word starts at "aB" and at the last capital of "ABc" (HTTPServer).
      const bool prev_lower = i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                                        std::isdigit(static_cast<unsigned char>(name[i - 1])));
      const bool acronym_end = i > 0 && std::isupper(static_cast<unsigned char>(name[i - 1])) && i + 1 < name.size() &&
                               std::islower(static_cast<unsigned char>(name[i + 1]));
      if (prev_lower || acronym_end) dash();
      out.push_back(ascii_lower(static_cast<char>(c)));
    } else if (std::islower(c) || std::isdigit(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      dash();
    }
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  return out.empty() ? "agent" : out;
}

json to_acp_manifest(const CapabilityDescriptor& d) {
  // ACP requires at least one content type each way; what a tool takes and
  // gives is JSON, what an agent or skill takes and gives is text.
  const std::string fallback = d.kind == CapabilityKind::tool ? "application/json" : "text/plain";
  auto types = [&](const std::vector<std::string>& modes) {
    return modes.empty() ? json::array({fallback}) : json(modes);
  };
  json kaisha{{"name", d.name},
              {"kind", to_string(d.kind)},
              {"input_schema", d.input_schema},
              {"input_modes", d.input_modes},
              {"output_modes", d.output_modes}};
  if (!d.title.empty()) kaisha["title"] = d.title;
  if (!d.examples.empty()) kaisha["examples"] = d.examples;
  if (d.output_schema) kaisha["output_schema"] = *d.output_schema;
  if (d.costs) kaisha["costs"] = *d.costs;
  if (d.annotations) kaisha["annotations"] = *d.annotations;

  json metadata{{"annotations", {{"kaisha", std::move(kaisha)}}}};
  if (!d.tags.empty()) metadata["tags"] = d.tags;
  return json{{"name", acp_agent_name(d.name)},
              {"description", d.description},
              {"input_content_types", types(d.input_modes)},
              {"output_content_types", types(d.output_modes)},
              {"metadata", std::move(metadata)}};
}

Result<CapabilityDescriptor> from_acp_manifest(const json& manifest) {
  if (!manifest.is_object()) return bad("ACP agent manifest", "must be an object");
  auto name = required_name(manifest, "name", "ACP agent manifest");
  if (!name.ok()) return name.error();
  CapabilityDescriptor d;
  d.kind = CapabilityKind::agent;
  d.name = std::move(name.value());
  const std::string where = "ACP agent '" + d.name + "'";
  std::optional<Error> e;
  if (!read_string(manifest, "description", d.description, where, e) ||
      !read_strings(manifest, "input_content_types", d.input_modes, where, e) ||
      !read_strings(manifest, "output_content_types", d.output_modes, where, e)) {
    return *e;
  }
  auto meta = manifest.find("metadata");
  if (meta == manifest.end() || meta->is_null()) return d;
  if (!meta->is_object()) return bad(where, "\"metadata\" must be an object");
  if (!read_strings(*meta, "tags", d.tags, where, e)) return *e;

  auto ann = meta->find("annotations");
  if (ann == meta->end() || !ann->is_object()) return d;
  auto k = ann->find("kaisha");
  if (k == ann->end() || !k->is_object()) return d;
  // Our own manifest: the fields ACP has no place for come back from here.
  json out;
  if (!read_string(*k, "name", d.name, where, e) || !read_kind(*k, "kind", d.kind, where, e) ||
      !read_string(*k, "title", d.title, where, e) || !read_schema(*k, "input_schema", d.input_schema, where, e) ||
      !read_schema(*k, "output_schema", out, where, e) || !read_strings(*k, "examples", d.examples, where, e) ||
      !read_strings(*k, "input_modes", d.input_modes, where, e) ||
      !read_strings(*k, "output_modes", d.output_modes, where, e)) {
    return *e;
  }
  if (!out.is_null()) d.output_schema = out;
  if (auto c = k->find("costs"); c != k->end() && !c->is_null()) d.costs = *c;
  if (auto a = k->find("annotations"); a != k->end() && !a->is_null()) d.annotations = *a;
  return d;
}

// ---- llm::ToolSpec ------------------------------------------------------------

llm::ToolSpec to_tool_spec(const CapabilityDescriptor& d) {
  return llm::ToolSpec{d.name, d.description, schema_or_default(d.input_schema)};
}

CapabilityDescriptor from_tool_spec(const llm::ToolSpec& spec) {
  CapabilityDescriptor d;
  d.name = spec.name;
  d.description = spec.description;
  d.input_schema = schema_or_default(spec.parameters);
  return d;
}

}  // namespace kaisha::jsonrpc
