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
  // Every HALO prompt but the fallback system prompt, which is loaded as
  // plain text (assistant_fallback).
  static const std::vector<HaloPrompt> kPrompts = [] {
    std::vector<HaloPrompt> out;
    for (HaloPrompt p : kHaloPrompts)
      if (p != HaloPrompt::assistant_fallback) out.push_back(p);
    return out;
  }();
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
