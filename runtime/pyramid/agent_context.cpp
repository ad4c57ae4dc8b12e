#include "runtime/pyramid/agent_context.hpp"

#include "runtime/core/data_paths.hpp"

namespace kaisha::pyramid {
namespace {

// Appendix B writes the placeholder with single braces.
std::string fill_task_id(std::string text, const std::string& task_id) {
  static const std::string placeholder = "{task_id}";
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + task_id.size()))
    text.replace(at, placeholder.size(), task_id);
  return text;
}

// The call's own messages: a system message of its own at the front is C_sys's place.
std::vector<llm::ChatMessage>::const_iterator own_start(const std::vector<llm::ChatMessage>& environment) {
  return environment.begin() + (!environment.empty() && environment.front().role == llm::Role::system ? 1 : 0);
}

std::string environment_text(const std::vector<llm::ChatMessage>& environment) {
  std::string out;
  for (const auto& m : environment) {
    out += m.content;
    for (const auto& c : m.tool_calls) out += "\n" + c.name + " " + c.arguments;
    out += "\n";
  }
  return out;
}

}  // namespace

Result<AgentContext> AgentContext::load(const std::string& prompts_dir) {
  const std::string dir = prompts_dir.empty() ? data_file("prompts") : prompts_dir;
  auto system = planning::PromptTemplate::load(dir + "/pyramid/agent_system.md");
  if (!system.ok()) return system.error();
  auto shared = planning::PromptTemplate::load(dir + "/pyramid/shared_context.md");
  if (!shared.ok()) return shared.error();
  auto output_control = read_text_file(dir + "/pyramid/output_control.md");
  if (!output_control.ok()) return output_control.error();
  return AgentContext(std::move(system).value(), std::move(shared).value(), std::move(output_control).value());
}

std::string AgentContext::system_prompt(const AgentDefinition& agent, const std::string& task_id) const {
  auto text = system_.render(
      {{"responsibility", agent.responsibility}, {"workflow", agent.workflow}, {"output_control", output_control_}});
  // The template's placeholders are fixed above; a file edited to need
  // others shows its error rather than losing the prompt.
  return fill_task_id(text.ok() ? *text : text.error().message, task_id);
}

std::string AgentContext::long_term_text(const WorkspaceIndex& index, int64_t budget) const {
  std::string files = index.render(budget);
  return files.empty() ? "(none yet)\n" : files;
}

std::string AgentContext::shared_message(const std::string& task_id, const std::string& files,
                                         const std::string& calls) const {
  auto text = shared_.render({{"task_id", task_id}, {"files", files}, {"calls", calls}});
  return text.ok() ? *text : text.error().message;
}

std::vector<llm::ChatMessage> AgentContext::messages(const AgentDefinition& agent, const std::string& task_id,
                                                     const WorkspaceIndex& index, int64_t index_budget,
                                                     const CallTree& tree, uint64_t call,
                                                     const std::vector<llm::ChatMessage>& environment) const {
  std::vector<llm::ChatMessage> out;
  out.push_back({llm::Role::system, system_prompt(agent, task_id), {}, "", ""});
  std::string calls = tree.render(call);
  out.push_back({llm::Role::user,
                 shared_message(task_id, long_term_text(index, index_budget), calls.empty() ? "(none)\n" : calls),
                 {},
                 "",
                 ""});
  out.insert(out.end(), own_start(environment), environment.end());
  return out;
}

ContextParts AgentContext::parts(const AgentDefinition& agent, const std::string& task_id, const WorkspaceIndex& index,
                                 int64_t index_budget, const CallTree& tree, uint64_t call,
                                 const std::vector<llm::ChatMessage>& environment, const TokenCounter& count) const {
  ContextParts p;
  p.system.text = system_prompt(agent, task_id);
  p.long_term.text = long_term_text(index, index_budget);
  p.short_term.text = tree.render(call);
  p.environment.text = environment_text(std::vector<llm::ChatMessage>(own_start(environment), environment.end()));
  for (ContextPart* part : {&p.system, &p.long_term, &p.short_term, &p.environment}) part->tokens = count(part->text);
  return p;
}

}  // namespace kaisha::pyramid
