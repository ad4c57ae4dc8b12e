#include "api/runtime_options.hpp"

#include <utility>

#include "actors/system/provider_chat_client.hpp"
#include "runtime/config/config_loader.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::api {

Result<config::Config> load_company_config(const std::string& file, const std::string& text) {
  if (!text.empty()) return config::parse_config(text, file.empty() ? "config.yaml" : file);
  if (!file.empty()) return config::load_config_file(file);
  return config::default_config();
}

Result<actors::RuntimeOptions> runtime_options(CompanyOptions options) {
  if (!options.data_dir.empty()) set_data_root(options.data_dir);
  auto c = load_company_config(options.config_file, options.config_text);
  if (!c.ok()) return c.error();
  actors::RuntimeOptions ro;
  ro.config = std::move(c).value();
  ro.chat = options.models ? options.models : actors::make_provider_chat_client(ro.config);
  ro.progress = options.events;
  ro.session_id = options.session_id;
  ro.strategy = options.strategy;
  ro.resume = options.resume;
  ro.scheduler_threads = options.threads;
  ro.tool_sources = std::move(options.tools);
  return ro;
}

}  // namespace kaisha::api
