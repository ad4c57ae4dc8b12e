#include "runtime/pyramid/agent_tools.hpp"

#include <algorithm>

#include "runtime/core/bounded_json.hpp"

namespace kaisha::pyramid {

llm::ToolSpec agent_tool_spec(const AgentDefinition& agent) {
  llm::ToolSpec spec;
  spec.name = agent.name;
  spec.description = agent.description;
  spec.parameters =
      json{{"type", "object"},
           {"properties",
            {{"task_id", {{"type", "string"}, {"description", "the id of the task; the same for every call in it"}}},
             {"task_input",
              {{"type", "string"},
               {"description",
                "the sub-task: an instruction, with workspace files referred to by relative path and "
                "description"}}},
             {"max_turns", {{"type", "integer"}, {"minimum", 1}, {"default", agent.max_turns}}},
             {"references",
              {{"type", "array"},
               {"maxItems", kMaxReferences},
               {"description", "workspace files the sub-task works from, each checked to exist before it starts"},
               {"items",
                {{"type", "object"},
                 {"properties",
                  {{"path", {{"type", "string"}, {"description", "relative to the task's workspace"}}},
                   {"description", {{"type", "string"}, {"description", "what the file holds"}}}}},
                 {"required", {"path", "description"}},
                 {"additionalProperties", false}}}}}}},
           {"required", {"task_id", "task_input"}},
           {"additionalProperties", false}};
  return spec;
}

std::vector<llm::ToolSpec> tools_of(const AgentLibrary& library, const AgentDefinition& agent,
                                    const std::map<std::string, llm::ToolSpec>& level0_specs) {
  std::vector<llm::ToolSpec> out;
  bool has_final = false;
  for (const std::string& name : agent.available_tools) {
    if (const AgentDefinition* callee = library.find(name)) {
      out.push_back(agent_tool_spec(*callee));
      continue;
    }
    auto spec = level0_specs.find(name);
    if (spec == level0_specs.end()) continue;
    out.push_back(spec->second);
    has_final = has_final || name == "final_output";
  }
  if (!has_final)
    if (auto spec = level0_specs.find("final_output"); spec != level0_specs.end()) out.push_back(spec->second);
  return out;
}

Status check_allowed(const AgentDefinition& agent, const std::string& tool) {
  const auto& tools = agent.available_tools;
  if (tool == "final_output" || std::find(tools.begin(), tools.end(), tool) != tools.end()) return {};
  std::string list;
  for (const auto& t : tools) list += (list.empty() ? "" : ", ") + t;
  if (std::find(tools.begin(), tools.end(), "final_output") == tools.end())
    list += (list.empty() ? "" : ", ") + std::string("final_output");
  return Error{"tool_not_allowed",
               "Tool `" + tool + "` is not available to " + agent.name + ". The tools it may call are: " + list + "."};
}

Result<AgentCall> parse_agent_call(const AgentDefinition& callee, std::string_view arguments, size_t max_input_bytes) {
  auto refuse = [&](const std::string& what) { return Error{"agent_call", callee.name + ": " + what}; };
  BoundedJson parsed = parse_bounded_json(arguments, JsonLimits{1u << 20, 16});
  if (!parsed.ok) return refuse("the arguments are not JSON: " + parsed.error.message);
  const json& j = parsed.value;
  if (!j.is_object()) return refuse("the arguments must be a JSON object {task_id, task_input}");
  AgentCall call;
  call.max_turns = callee.max_turns;
  if (auto id = j.find("task_id"); id != j.end() && id->is_string()) call.task_id = id->get<std::string>();
  auto input = j.find("task_input");
  if (input == j.end() || !input->is_string() ||
      input->get_ref<const std::string&>().find_first_not_of(" \t\r\n") == std::string::npos)
    return refuse("task_input is required: the instruction for " + callee.name);
  call.task_input = input->get<std::string>();
  // Material travels by reference (addr, desc), not inline (item 37).
  if (call.task_input.size() > max_input_bytes)
    return refuse("task_input is " + std::to_string(call.task_input.size()) + " bytes, more than the " +
                  std::to_string(max_input_bytes) +
                  " allowed inline: write the material to a file in the task's directory and pass its path with a "
                  "one-line description");
  if (auto m = j.find("max_turns"); m != j.end() && !m->is_null()) {
    if (!m->is_number_integer() || m->get<int64_t>() < 1) return refuse("max_turns must be an integer >= 1");
    call.max_turns = std::min(m->get<int64_t>(), callee.max_turns);
  }
  if (auto r = j.find("references"); r != j.end() && !r->is_null()) {
    auto refs = parse_file_refs(*r, "references", kMaxReferences);
    if (!refs.ok()) return refuse(refs.error().message);
    call.references = std::move(refs).value();
  }
  for (const auto& [key, value] : j.items())
    if (key != "task_id" && key != "task_input" && key != "max_turns" && key != "references")
      return refuse("unknown argument \"" + key + "\" (task_id, task_input, max_turns, references)");
  return call;
}

std::string instruction_with_references(const AgentCall& call) {
  if (call.references.empty()) return call.task_input;
  std::string out = call.task_input + "\n\nReferences (files in the task's workspace):";
  for (const FileRef& r : call.references) out += "\n- " + r.path + ": " + r.description;
  return out;
}

}  // namespace kaisha::pyramid
