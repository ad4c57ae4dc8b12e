#include "cli/cli_config.hpp"

#include <filesystem>
#include <iostream>

#include "runtime/config/config_loader.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"
#include "runtime/provider/llm_client.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::cli {

Status start_tracing(const config::Config& c, const std::string& node) {
  const config::TracesConfig& t = c.telemetry.traces;
  if (!t.enabled()) return Status::Ok();
  telemetry::SpanExporterOptions so;
  so.endpoint = t.endpoint;
  so.file = t.file;
  so.headers = t.headers;
  so.node = node;
  auto exporter = telemetry::SpanExporter::start(std::move(so));
  if (!exporter.ok()) return Error{exporter.error().code, "telemetry.traces: " + exporter.error().message};
  telemetry::install_tracer(std::make_unique<telemetry::Tracer>(std::move(exporter).value(), t.include_text));
  return Status::Ok();
}

Result<config::Config> load_cli_config(const CommonOptions& o, bool needs_model,
                                       const config::ConfigOverrides& overrides) {
  Result<config::Config> loaded = !o.config_file.empty() ? config::load_config_file(o.config_file, overrides)
                                  : overrides.empty()    ? Result<config::Config>(config::default_config())
                                                         : config::parse_config("{}", "the command line", overrides);
  if (!loaded.ok()) return loaded;
  config::Config c = std::move(loaded).value();
  // Older key names: the file still works, the user learns the new names.
  for (const std::string& w : c.warnings) std::cerr << "kaisha: warning: " << w << "\n";
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

Result<std::unique_ptr<store::JournalStore>> open_to_write(const config::Config& c) {
  return store::JournalStore::open(c.store_path, {store::durability_named(c.journal.durability)});
}

Result<std::string> session_left_running(const config::Config& c) {
  const std::string& store_path = c.store_path;
  if (no_journal_yet(store_path)) return std::string();
  auto st = open_to_write(c);
  if (!st.ok()) return st.error();
  auto latest = (*st)->latest_session();
  if (!latest.ok()) return latest.error();
  if (!latest->has_value()) return std::string();
  const std::string id = (*latest)->id;
  // Its own tasks, and those of the sessions it opened for its clients.
  std::vector<std::string> ids{id};
  auto hosted = (*st)->hosted_sessions(id);
  if (!hosted.ok()) return hosted.error();
  for (const auto& h : *hosted) ids.push_back(h.id);
  bool left = false;
  for (const auto& sid : ids) {
    auto tasks = (*st)->tasks(sid);
    if (!tasks.ok()) return tasks.error();
    for (const auto& t : *tasks) left = left || t.status == "running";
  }
  if (!left) return std::string();
  auto holder = store::SessionLock::holder(store_path, id);
  if (!holder.ok()) return holder.error();
  return holder->has_value() ? std::string() : id;
}

bool no_journal_yet(const std::string& path) {
  if (path.rfind("file:", 0) == 0 || path == ":memory:") return false;
  std::error_code ec;
  return !std::filesystem::exists(path, ec);
}

}  // namespace kaisha::cli
