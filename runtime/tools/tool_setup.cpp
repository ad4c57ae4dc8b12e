#include "runtime/tools/tool_setup.hpp"

#include <filesystem>

#include "runtime/core/data_paths.hpp"
#include "runtime/tools/builtin_tools.hpp"
#include "runtime/tools/pyramid_tools.hpp"
#include "runtime/tools/user_tools.hpp"

namespace kaisha::tools {

namespace {

std::filesystem::path store_dir_of(const config::Config& c) {
  std::filesystem::path store_dir = std::filesystem::path(c.store_path).parent_path();
  return store_dir.empty() ? std::filesystem::path(".") : store_dir;
}

sandbox::SandboxLimits sandbox_limits_of(const config::ToolsConfig& t) {
  sandbox::SandboxLimits limits;
  limits.wall_timeout_ms = t.sandbox_timeout_ms;
  limits.cpu_seconds = t.sandbox_cpu_seconds;
  limits.memory_bytes = t.sandbox_memory_mb << 20;
  limits.max_processes = t.sandbox_max_processes;
  limits.disk_bytes = t.sandbox_disk_mb << 20;
  return limits;
}

}  // namespace

std::string workspace_root_of(const config::Config& c) {
  return c.tools.workspace_root.empty() ? (store_dir_of(c) / "kaisha-work").string() : c.tools.workspace_root;
}

std::string user_tools_dir_of(const config::Config& c) {
  return c.tools.user_tools_dir.empty() ? (store_dir_of(c) / "kaisha-tools").string() : c.tools.user_tools_dir;
}

namespace {

BuiltinToolsOptions builtin_options_of(const config::Config& c, std::shared_ptr<ToolSwitches> switches) {
  const config::ToolsConfig& t = c.tools;
  BuiltinToolsOptions bo;
  bo.workspace_root = workspace_root_of(c);
  bo.file_limits = {t.max_read_bytes, t.max_write_bytes, t.max_list_entries};
  bo.code_limits = sandbox_limits_of(t);
  bo.web.timeout_ms = t.web_timeout_ms;
  bo.web.max_page_bytes = t.max_page_bytes;
  bo.web.allow_private_addresses = t.web_allow_private_addresses;
  bo.web.allowed_private_networks = t.web_allowed_private_networks;
  bo.web.search_engine = t.web_search_engine;
  bo.web.search_url = t.web_search_url;
  bo.switches = std::move(switches);
  // Mounts are opened per call; the user-tools directory exists by then.
  bo.mounts = {{kDefaultToolsPrefix, data_file("data/tools/default_tools")}, {kUserToolsPrefix, user_tools_dir_of(c)}};
  return bo;
}

}  // namespace

Result<std::shared_ptr<company::ToolSource>> make_builtin_tools(const config::Config& c) {
  auto switches = std::make_shared<ToolSwitches>();
  switches->tool_creation = c.switches.tool_creation;
  switches->tool_invocation = c.switches.tool_invocation;
  auto builtin = BuiltinTools::create(builtin_options_of(c, std::move(switches)));
  if (!builtin) return builtin.error();
  return std::shared_ptr<company::ToolSource>(std::move(builtin).value());
}

Result<std::shared_ptr<PyramidTools>> make_pyramid_tools(const config::Config& c) {
  const config::ToolsConfig& t = c.tools;
  PyramidToolsOptions o;
  o.workspace_root = workspace_root_of(c);
  o.file_limits = {t.max_read_bytes, t.max_write_bytes, t.max_list_entries};
  o.code_limits = sandbox_limits_of(t);
  o.search_engine = t.web_search_engine;
  o.search_url = t.web_search_url;
  o.search_timeout_ms = t.web_timeout_ms;
  return PyramidTools::create(std::move(o));
}

Result<ToolSetup> make_tool_sources(const config::Config& c, const std::vector<llm::ToolSpec>& taken) {
  const config::ToolsConfig& t = c.tools;
  const std::string workspace_root = workspace_root_of(c);
  const std::string user_dir = user_tools_dir_of(c);
  const std::string shipped_dir = data_file("data/tools/default_tools");

  ToolSetup setup;
  setup.switches = std::make_shared<ToolSwitches>();
  setup.switches->tool_creation = c.switches.tool_creation;
  setup.switches->tool_invocation = c.switches.tool_invocation;

  const sandbox::SandboxLimits limits = sandbox_limits_of(t);

  UserToolsOptions uo;
  uo.user_dir = user_dir;
  uo.default_dir = shipped_dir;
  uo.workspace_root = workspace_root;
  uo.limits = limits;
  uo.load_limits = limits;
  uo.env_allow = t.env;
  uo.network = t.tools_network;
  uo.switches = setup.switches;
  for (const auto& s : taken) uo.reserved_names.insert(s.name);

  auto builtin = BuiltinTools::create(builtin_options_of(c, setup.switches));
  if (!builtin) return builtin.error();
  for (const auto& s : (*builtin)->specs()) uo.reserved_names.insert(s.name);

  auto user = UserTools::create(uo);
  if (!user) return user.error();
  setup.warnings = (*user)->load_errors();
  setup.sources = {*builtin, *user};
  return setup;
}

}  // namespace kaisha::tools
