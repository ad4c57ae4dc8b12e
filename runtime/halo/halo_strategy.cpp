#include "runtime/halo/halo_strategy.hpp"

#include <memory>
#include <utility>

#include "runtime/halo/entry/halo_settings_reader.hpp"
#include "runtime/halo/halo_driver.hpp"
#include "runtime/halo/halo_setup.hpp"
#include "runtime/tools/tool_setup.hpp"

namespace kaisha::halo {

Result<driver::DrivenStrategy> make_halo_strategy(const driver::StrategySetup& in) {
  auto setup = std::make_shared<HaloSetup>();
  if (const auto* s = std::any_cast<HaloSettings>(&in.settings)) setup->settings = *s;
  const std::string model = setup->settings.model.empty() ? in.config->ceo.model : setup->settings.model;
  if (model.empty())
    return Error{"config", "halo.model: HALO needs a model (set halo.model or ceo.model, or KAISHA_MODEL)"};
  setup->agent_cost = in.price(model);
  if (Status s = in.check_model(setup->agent_cost.model_ref); !s.ok())
    return Error{"config", "halo.model '" + model + "': " + s.error().message};
  auto prompts = load_halo_prompts();
  if (!prompts) return prompts.error();
  setup->prompts = std::make_shared<const HaloPrompts>(std::move(prompts).value());
  setup->listening = in.listening;

  driver::DrivenStrategy d;
  d.agent = "HALO";
  d.who = "HALO";
  d.model = setup->agent_cost;
  if (setup->settings.code_tool) {
    // The built-in tools run the role agents' code; only the sandbox tool is offered.
    auto tools = tools::make_builtin_tools(*in.config);
    if (!tools) return tools.error();
    for (const llm::ToolSpec& spec : (*tools)->specs())
      if (spec.name == kCodeTool) setup->code_tool = spec;
    if (!setup->code_tool) return Error{"config", std::string("halo.code_tool: no built-in tool ") + kCodeTool};
    d.tools = std::move(tools).value();
  }
  d.make = [setup](const msg::TaskRequest& task, const driver::StateValues&) {
    return driver::make_task_driver<HaloDriver>(*setup, task);
  };
  return d;
}

}  // namespace kaisha::halo
