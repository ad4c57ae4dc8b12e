#include "runtime/pyramid/library_generation.hpp"

#include "runtime/core/data_paths.hpp"
#include "runtime/pyramid/agent_library.hpp"

namespace kaisha::pyramid {
namespace {

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

llm::ChatMessage message(llm::Role role, std::string content) {
  llm::ChatMessage m;
  m.role = role;
  m.content = std::move(content);
  return m;
}

}  // namespace

std::string answer_yaml(const std::string& text) {
  const size_t fence = text.find("```");
  if (fence == std::string::npos) return trimmed(text);
  const size_t body = text.find('\n', fence);  // past "```yaml"
  if (body == std::string::npos) return trimmed(text);
  const size_t end = text.find("```", body + 1);
  return trimmed(text.substr(body + 1, end == std::string::npos ? std::string::npos : end - body - 1));
}

LibraryGeneration::LibraryGeneration(std::string description, std::string source, int max_attempts,
                                     planning::PromptTemplate system, planning::PromptTemplate request,
                                     planning::PromptTemplate retry)
    : description_(std::move(description)),
      source_(std::move(source)),
      max_attempts_(max_attempts),
      system_(std::move(system)),
      request_(std::move(request)),
      retry_(std::move(retry)) {
  messages_.push_back(message(llm::Role::system, system_
                                                     .render({{"tools", joined_names(level0_tools())},
                                                              {"judge_tools", joined_names(judge_tools())},
                                                              {"max_children", "5"}})
                                                     .value()));
  messages_.push_back(message(llm::Role::user, request_.render({{"description", description_}}).value()));
}

Result<LibraryGeneration> LibraryGeneration::create(std::string description, std::string source, int max_attempts,
                                                    const std::string& prompts_dir) {
  if (trimmed(description).empty()) return Error{"usage", "describe the domain the library is for"};
  if (max_attempts < 1 || max_attempts > 10)
    return Error{"usage", "attempts: expected 1 to 10, got " + std::to_string(max_attempts)};
  const std::string dir = (prompts_dir.empty() ? data_file("prompts") : prompts_dir) + "/pyramid/";
  auto system =
      planning::PromptTemplate::load_exactly(dir + "generate_library.md", {"tools", "judge_tools", "max_children"});
  if (!system) return system.error();
  auto request = planning::PromptTemplate::load_exactly(dir + "generate_library_request.md", {"description"});
  if (!request) return request.error();
  auto retry = planning::PromptTemplate::load_exactly(dir + "generate_library_retry.md", {"error", "left"});
  if (!retry) return retry.error();
  return LibraryGeneration(std::move(description), std::move(source), max_attempts, std::move(system).value(),
                           std::move(request).value(), std::move(retry).value());
}

llm::ChatRequest LibraryGeneration::first_request() const {
  llm::ChatRequest r;
  r.messages = {messages_[0], messages_[1]};
  return r;
}

LibraryGeneration::Step LibraryGeneration::on_answer(const std::string& text) {
  Step step;
  if (over_) {
    step.error = "the generation has ended";
    return step;
  }
  ++attempts_;
  const std::string yaml = answer_yaml(text);
  std::string error;
  if (yaml.empty()) {
    error = source_ + ": the answer holds no YAML";
  } else {
    auto lib = AgentLibrary::parse(yaml, source_);
    if (!lib.ok())
      error = lib.error().message;
    else if (lib->shape().roots.empty())
      error = source_ + ": agents: the library has no agent of level 1 or more";
  }
  if (error.empty()) {
    over_ = true;
    step.kind = Step::Kind::done;
    step.yaml = yaml + "\n";
    return step;
  }
  step.error = error;
  if (attempts_ >= max_attempts_) {
    over_ = true;
    return step;  // failed
  }
  messages_.push_back(message(llm::Role::assistant, text));
  messages_.push_back(message(
      llm::Role::user, retry_.render({{"error", error}, {"left", std::to_string(max_attempts_ - attempts_)}}).value()));
  step.kind = Step::Kind::ask_again;
  step.request.messages = messages_;
  return step;
}

}  // namespace kaisha::pyramid
