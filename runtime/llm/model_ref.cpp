#include "runtime/llm/model_ref.hpp"

namespace kaisha::llm {
namespace {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

Error bad(std::string_view text, const char* why) {
  return Error{"config", "bad model reference \"" + std::string(text) + "\": " + why +
                             " (expected provider:model, e.g. ollama:llama3.2)"};
}

}  // namespace

Result<ModelRef> parse_model_ref(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty()) return bad(text, "it is empty");
  auto colon = t.find(':');
  if (colon == std::string_view::npos) return bad(text, "no ':' between provider and model");
  std::string_view provider = trim(t.substr(0, colon));
  std::string_view model = trim(t.substr(colon + 1));
  if (provider.empty()) return bad(text, "the provider part before ':' is empty");
  if (model.empty()) return bad(text, "the model part after ':' is empty");
  return ModelRef{std::string(provider), std::string(model)};
}

std::string to_string(const ModelRef& ref) { return ref.provider + ":" + ref.model; }

}  // namespace kaisha::llm
