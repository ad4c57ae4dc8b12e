#include "runtime/halo/halo_setup.hpp"

#include <filesystem>

#include "runtime/answers/trim.hpp"

namespace kaisha::halo {
namespace {

// A context text from prompts/halo/<file>, trimmed, with exactly the
// placeholders `expected`.
Result<planning::PromptTemplate> load_context_text(const std::string& root, const std::string& file,
                                                   const std::vector<std::string>& expected) {
  const std::string path = (std::filesystem::path(root) / "prompts" / "halo" / file).string();
  Result<planning::PromptTemplate> t = planning::PromptTemplate::load(path);
  if (!t) return t.error();
  if (t->placeholders() != expected) {
    std::string want;
    for (const std::string& n : expected) want += (want.empty() ? "{{" : ", {{") + n + "}}";
    return Error{"prompt", "prompt template " + path + " must use " + (want.empty() ? "no placeholder" : want) +
                               ", in that order"};
  }
  return planning::PromptTemplate::from_text(std::string(answers::trim(t->text())), path);
}

}  // namespace

const std::vector<HaloPrompt>& driver_prompts() {
  static const std::vector<HaloPrompt> kPrompts = {
      HaloPrompt::task_parser,
      HaloPrompt::prompt_template,
      HaloPrompt::prompt_optimizer,
      HaloPrompt::final_prompt,
      HaloPrompt::agent_prompt_template,
      HaloPrompt::agent_prompt_optimizer,
      HaloPrompt::agent_final_prompt,
      HaloPrompt::task_decomposition,
      HaloPrompt::role_design,
      HaloPrompt::inference_solve,
      HaloPrompt::judge,
      HaloPrompt::scorer,
      HaloPrompt::parse_mmlu,
      HaloPrompt::parse_math,
  };
  return kPrompts;
}

std::string missing_prompts(const HaloPrompts& prompts) {
  std::string out;
  for (HaloPrompt p : driver_prompts())
    if (!prompts.templates.count(p)) out += (out.empty() ? "" : ", ") + std::string(file_name(p));
  return out;
}

Result<HaloPrompts> load_halo_prompts(const std::string& root) {
  HaloPrompts out;
  for (HaloPrompt p : driver_prompts()) {
    Result<planning::PromptTemplate> t = load_halo_prompt(p, root);
    if (!t) return t.error();
    out.templates.emplace(p, std::move(t).value());
  }
  Result<std::string> fallback = load_assistant_fallback(root);
  if (!fallback) return fallback.error();
  out.assistant_fallback = std::move(fallback).value();
  Result<planning::PromptTemplate> response = load_context_text(root, "context_response.md", {"role", "answer"});
  if (!response) return response.error();
  out.context_response = std::move(response).value();
  Result<planning::PromptTemplate> ack = load_context_text(root, "context_acknowledgement.md", {});
  if (!ack) return ack.error();
  out.context_acknowledgement = ack->text();
  return out;
}

}  // namespace kaisha::halo
