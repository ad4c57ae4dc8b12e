#include "kaisha/company.hpp"

#include <utility>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "api/runtime_options.hpp"

namespace kaisha {

Result<std::shared_ptr<ModelBackend>> default_models(const std::string& config_file, const std::string& config_text) {
  auto c = api::load_company_config(config_file, config_text);
  if (!c.ok()) return c.error();
  return actors::make_provider_chat_client(*c);
}

Result<std::unique_ptr<Company>> Company::start(CompanyOptions options) {
  auto ro = api::runtime_options(std::move(options));
  if (!ro.ok()) return ro.error();
  auto rt = actors::CompanyRuntime::start(std::move(ro).value());
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
