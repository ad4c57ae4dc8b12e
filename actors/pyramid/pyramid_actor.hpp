// The pyramid strategy's actor (InfiAgent's agents as tools; the algorithm is
// runtime/pyramid/pyramid_driver.hpp). For each task it chooses the entry
// agent (the configured one, or the router's match; the driver asks the
// routing model when pyramid.router says so), runs the driver's
// effects through the strategy kit — every library agent the task uses is
// hired once for the task and asked one turn at a time — and runs the
// agents' level-0 tools in the task's own directory. Quality scores are
// loaded from the journal before the first task and saved as they change.
//
// Protocol: (task_atom, msg::TaskRequest) -> msg::TaskResult, one at a time;
// (cancel_atom, task id, why) -> bool.
#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agents/employee_placer.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/memory/embedder.hpp"
#include "runtime/pyramid/entry/pyramid_settings.hpp"

namespace kaisha::pyramid {
struct PyramidSetup;
}  // namespace kaisha::pyramid

namespace kaisha::actors {

struct PyramidDeps {
  caf::actor ledger;
  caf::actor model_client;
  caf::actor journal;
  caf::actor judge;  // unused: the library's judge audits
  std::shared_ptr<company::ProgressSink> progress;
  std::shared_ptr<EmployeePlacer> placer;  // null = agents run in this process
  config::Config config;
  pyramid::PyramidConfig settings;  // the config's pyramid section
  std::string session_id;
  std::shared_ptr<const pyramid::PyramidSetup> setup;
  // Every task enters at `entry`; "" = setup->router chooses.
  std::string entry;
  // The model that scores the router's candidates (pyramid.router: model or both).
  economy::ModelCost router_model;
  // The level-0 tools (tools::PyramidTools).
  std::shared_ptr<company::ToolSource> tools;
  // The company's embedder (memory.embedding_model), which routes tasks, and
  // its one tool (pyramid::kEmbedQueryTool) for an embedder that cannot
  // answer at once; null with a fixed entry.
  std::shared_ptr<memory::Embedder> embedder;
  std::shared_ptr<company::ToolSource> embed_tool;
};

caf::actor spawn_pyramid(caf::actor_system& sys, PyramidDeps deps);

}  // namespace kaisha::actors
