#include "cli/cli_config.hpp"

#include <filesystem>

#include "runtime/config/config_loader.hpp"
#include "runtime/provider/llm_client.hpp"

namespace kaisha::cli {

Result<config::Config> load_cli_config(const CommonOptions& o, bool needs_model) {
  Result<config::Config> loaded = o.config_file.empty() ? Result<config::Config>(config::default_config())
                                                        : config::load_config_file(o.config_file);
  if (!loaded.ok()) return loaded;
  config::Config c = std::move(loaded).value();
  if (!o.db.empty()) c.store_path = o.db;
  if (!o.model.empty()) c.ceo.model = o.model;
  if (needs_model && c.ceo.model.empty()) {
    const auto ollama = c.providers.find("ollama");
    if (ollama != c.providers.end() && provider::LlmClient::probe_ollama(ollama->second.base_url, 500)) {
      c.ceo.model = "ollama:llama3.2";
    } else {
      return Error{"config",
                   "no model configured and no Ollama answers at " +
                       (ollama != c.providers.end() ? ollama->second.base_url : std::string("127.0.0.1:11434")) +
                       ".\nConfigure one of:\n"
                       "  - start Ollama (ollama serve; ollama pull llama3.2), or\n"
                       "  - export KAISHA_MODEL=openai:gpt-4o-mini and OPENAI_API_KEY=..., or\n"
                       "  - export KAISHA_MODEL=gemini:gemini-2.0-flash and GEMINI_API_KEY=..., or\n"
                       "  - pass --model PROVIDER:MODEL, or set ceo.model in a --config file."};
    }
  }
  return c;
}

bool no_journal_yet(const std::string& path) {
  if (path.rfind("file:", 0) == 0 || path == ":memory:") return false;
  std::error_code ec;
  return !std::filesystem::exists(path, ec);
}

}  // namespace kaisha::cli
