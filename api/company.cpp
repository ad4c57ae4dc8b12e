#include "kaisha/company.hpp"

#include <utility>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "runtime/config/config_loader.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha {

namespace {

Result<config::Config> load(const std::string& file, const std::string& text) {
  if (!text.empty()) return config::parse_config(text, file.empty() ? "config.yaml" : file);
  if (!file.empty()) return config::load_config_file(file);
  return config::default_config();
}

}  // namespace

Result<std::shared_ptr<ModelBackend>> default_models(const std::string& config_file, const std::string& config_text) {
  auto c = load(config_file, config_text);
  if (!c.ok()) return c.error();
  return actors::make_provider_chat_client(*c);
}

Result<std::unique_ptr<Company>> Company::start(CompanyOptions options) {
  if (!options.data_dir.empty()) set_data_root(options.data_dir);
  auto c = load(options.config_file, options.config_text);
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
  auto rt = actors::CompanyRuntime::start(std::move(ro));
  if (!rt.ok()) return rt.error();
  return std::unique_ptr<Company>(new Company(std::move(rt).value()));
}

Company::Company(std::unique_ptr<actors::CompanyRuntime> runtime) : runtime_(std::move(runtime)) {}
Company::~Company() = default;

const std::string& Company::session_id() const { return runtime_->session_id(); }
const std::string& Company::strategy() const { return runtime_->strategy(); }

TaskResult Company::run(const std::string& input) { return runtime_->run_task(input); }
TaskResult Company::run(const std::string& input, const std::string& task_id) {
  return runtime_->run_task(input, task_id);
}

Result<std::vector<TaskResult>> Company::resume_interrupted() { return runtime_->resume_interrupted(); }

bool Company::cancel(const std::string& task_id, const std::string& why) { return runtime_->cancel(task_id, why); }

json Company::budget() { return runtime_->budget(); }

}  // namespace kaisha
