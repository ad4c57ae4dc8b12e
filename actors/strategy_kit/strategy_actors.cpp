#include "actors/strategy_kit/strategy_actors.hpp"

#include <utility>

#include "actors/effgen/effgen_spawner.hpp"
#include "actors/hashiru/hashiru_spawner.hpp"
#include "actors/pyramid/pyramid_spawner.hpp"
#include "actors/strategy_kit/driven_strategy_actor.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "runtime/halo/halo_strategy.hpp"
#include "runtime/hiva/hiva_strategy.hpp"

namespace kaisha::actors {
namespace {

struct Entry {
  std::string name;
  StrategySpawner spawn;
};

// kaisha's own strategies, then those registered (register_strategy).
std::vector<Entry>& spawners() {
  static std::vector<Entry> all = {
      {ceo_strategy(), spawn_hashiru},
      {"effgen", spawn_effgen},
      {"pyramid", spawn_pyramid_strategy},
      {"halo", driven_spawner("halo", "halo", halo::make_halo_strategy)},
      {"hiva", driven_spawner("hiva", "hiva", hiva::make_hiva_strategy)},
  };
  return all;
}

}  // namespace

StrategySpawner find_strategy_spawner(std::string_view name) {
  for (const Entry& e : spawners())
    if (e.name == name) return e.spawn;
  return {};
}

std::string ceo_strategy() { return "hashiru"; }

Result<RunnerChoice> runner_choice(const strategy::StrategyInfo& info, const config::Config& c) {
  const std::vector<std::string> on = info.runs_on.empty() ? std::vector<std::string>{info.name} : info.runs_on;
  if (on.size() == 1) return RunnerChoice([first = on[0]](const std::string&) { return first; });
  if (info.name != "auto" || on.size() != 2)
    return Error{"internal", "strategy " + info.name + " runs on several actors and has no way to choose"};
  return effgen_router_choice(on[0], on[1], c);
}

std::vector<std::string> spawnable_strategies() {
  std::vector<std::string> out;
  for (const Entry& e : spawners()) out.emplace_back(e.name);
  return out;
}

StrategySpawner driven_spawner(const std::string& name, const std::string& section, driver::StrategySetupFn setup) {
  return [name, section, setup = std::move(setup)](StrategyContext& ctx) -> Result<caf::actor> {
    driver::StrategySetup in;
    in.config = ctx.config;
    if (auto it = ctx.config->strategy_sections.find(section);
        !section.empty() && it != ctx.config->strategy_sections.end())
      in.section = it->second;
    if (auto it = ctx.config->strategy_settings.find(section);
        !section.empty() && it != ctx.config->strategy_settings.end())
      in.settings = it->second;
    in.session_id = ctx.session_id;
    in.price = [table = ctx.cost_table](const std::string& model) { return table->priced(model); };
    in.check_model = [chat = ctx.chat](const std::string& ref) { return chat->check_model(ref); };
    in.listening = [progress = ctx.progress] { return progress && progress->listening(); };
    auto driven = setup(in);
    if (!driven.ok()) return driven.error();
    if (!driven->make) return Error{"strategy", "strategy " + name + ": its setup made no driver"};
    if (Status s = ctx.chat->check_model(driven->model.model_ref); !driven->model.model_ref.empty() && !s.ok())
      return Error{"config", name + " model '" + driven->model.model_ref + "': " + s.error().message};
    driven->tools = ctx.wrapped(std::move(driven->tools));
    return spawn_driven_strategy(ctx, std::move(driven).value());
  };
}

Status register_strategy(strategy::StrategyInfo info, driver::StrategySetupFn setup) {
  if (!setup) return Error{"strategy", "strategy " + info.name + ": no setup function"};
  const std::string name = info.name;
  const std::string section = info.config_section;
  if (Status s = strategy::register_strategy_info(std::move(info)); !s.ok()) return s;
  spawners().push_back({name, driven_spawner(name, section, std::move(setup))});
  return Status::Ok();
}

}  // namespace kaisha::actors
