// kaisha graphs: the HiVA graphs kept in the store (saved by `kaisha evolve`
// or imported), as the strategy's state "graph/<name>", one version per
// iteration.
//   kaisha graphs                     every saved graph, a line each
//   kaisha graphs NAME                NAME iteration by iteration: agents and
//                                     edges added and removed, prompts and
//                                     tools rewritten, rewards, success
//   kaisha graphs --export NAME [--out FILE]   the latest version as versioned JSON
//   kaisha graphs --import FILE [--name NAME]  a graph from another machine, its
//                                     tool code checked again
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/hiva_setup.hpp"
#include "runtime/hiva/replies/tool_validation.hpp"
#include "runtime/hiva/tools/hiva_tool_source.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {
namespace {

struct GraphsOptions {
  CommonOptions common;
  std::string name;
  std::string export_name;
  std::string out;
  std::string import_file;
  std::string import_name;
};

int graphs_fail(const std::string& why, int code = 2) {
  std::cerr << "kaisha graphs: " << why << "\n";
  return code;
}

constexpr const char* kPrefix = "graph/";

std::string list_text(const json& a) {
  std::string out;
  if (!a.is_array()) return out;
  for (const json& x : a) {
    std::string item = x.is_string() ? x.get<std::string>()
                       : x.is_array() && x.size() == 2 && x[0].is_string() && x[1].is_string()
                           ? x[0].get<std::string>() + "->" + x[1].get<std::string>()
                           : x.dump();
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

std::string success_text(const json& v) {
  if (!v.contains("success") || v["success"].is_null()) return "no verdict";
  return v["success"].is_boolean() && v["success"].get<bool>() ? "success" : "failure";
}

int list_graphs(store::JournalStore& s, bool json_mode) {
  auto rows = s.state(hiva::kHivaStrategy);
  if (!rows.ok()) return graphs_fail(rows.error().message, 1);
  json all = json::array();
  for (const auto& r : *rows) {
    if (r.key.rfind(kPrefix, 0) != 0 || !r.value.is_object()) continue;
    const json& g = r.value.contains("graph") ? r.value["graph"] : json::object();
    json line{{"name", r.key.substr(6)},
              {"iteration", r.value.value("iteration", 0)},
              {"agents", g.contains("agents") && g["agents"].is_array() ? g["agents"].size() : 0},
              {"edges", g.contains("edges") && g["edges"].is_array() ? g["edges"].size() : 0},
              {"last", success_text(r.value)},
              {"saved_at", r.at}};
    all.push_back(std::move(line));
  }
  if (json_mode) {
    std::cout << dump_text(json{{"graphs", all}}) << "\n";
    return 0;
  }
  if (all.empty()) {
    std::cout << "no saved graphs (`kaisha evolve --task-set FILE --iterations T --name NAME` makes one)\n";
    return 0;
  }
  for (const json& g : all)
    std::cout << g["name"].get<std::string>() << "  iteration " << g["iteration"] << ", " << g["agents"] << " agents, "
              << g["edges"] << " edges, last: " << g["last"].get<std::string>() << "\n";
  return 0;
}

int show_graph(store::JournalStore& s, const std::string& name, bool json_mode) {
  auto rows = s.state_versions(hiva::kHivaStrategy, kPrefix + name);
  if (!rows.ok()) return graphs_fail(rows.error().message, 1);
  if (rows->empty()) return graphs_fail("no saved graph is named '" + name + "'");
  if (json_mode) {
    json versions = json::array();
    for (const auto& r : *rows) versions.push_back(r.value);
    std::cout << dump_text(json{{"name", name}, {"versions", versions}}) << "\n";
    return 0;
  }
  std::cout << "graph " << name << "\n";
  for (const auto& r : *rows) {
    const json& v = r.value;
    if (!v.is_object()) continue;
    if (const json f = v.value("weight_fit", json()); f.is_object()) {
      std::cout << "iteration " << v.value("iteration", 0) << ": knowledge weights fitted on " << f.value("outcomes", 0)
                << " routing outcomes: " << f.value("weights", json()).dump() << "\n";
      continue;
    }
    std::cout << "iteration " << v.value("iteration", 0);
    if (const std::string task = v.value("task", ""); !task.empty()) std::cout << " (task " << task << ")";
    if (const std::string from = v.value("imported_from", ""); !from.empty())
      std::cout << " (imported from " << from << ")";
    std::cout << ": " << success_text(v) << "\n";
    const json d = v.value("diff", json::object());
    for (auto [key, label] :
         {std::pair{"agents_added", "agents added"}, std::pair{"agents_removed", "agents removed"},
          std::pair{"edges_added", "edges added"}, std::pair{"edges_removed", "edges removed"},
          std::pair{"prompts_changed", "prompts rewritten"}, std::pair{"tools_changed", "tools rewritten"}})
      if (d.contains(key) && d[key].is_array() && !d[key].empty())
        std::cout << "  " << label << ": " << list_text(d[key]) << "\n";
    if (v.contains("rewards") && v["rewards"].is_object() && !v["rewards"].empty()) {
      std::cout << "  rewards:";
      for (const auto& [agent, reward] : v["rewards"].items()) std::cout << " " << agent << "=" << reward.dump();
      std::cout << "\n";
    }
  }
  return 0;
}

int export_graph(store::JournalStore& s, const GraphsOptions& o) {
  auto rows = s.state(hiva::kHivaStrategy);
  if (!rows.ok()) return graphs_fail(rows.error().message, 1);
  for (const auto& r : *rows) {
    if (r.key != kPrefix + o.export_name) continue;
    if (!r.value.is_object() || !r.value.contains("graph"))
      return graphs_fail("the saved graph '" + o.export_name + "' is not a graph snapshot", 1);
    // Checked before it leaves, so an export always imports.
    auto g = hiva::graph_from_json(r.value["graph"]);
    if (!g.ok()) return graphs_fail("the saved graph '" + o.export_name + "': " + g.error().message, 1);
    const std::string text = hiva::to_json(*g).dump(2) + "\n";
    if (o.out.empty() || o.out == "-") {
      std::cout << text;
      return 0;
    }
    std::ofstream f(o.out, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) return graphs_fail("cannot write " + o.out, 1);
    std::cerr << "kaisha graphs: wrote " << o.export_name << " (iteration " << r.value.value("iteration", 0) << ") to "
              << o.out << "\n";
    return 0;
  }
  return graphs_fail("no saved graph is named '" + o.export_name + "'");
}

int import_graph(const config::Config& c, const GraphsOptions& o) {
  auto text = read_text_file(o.import_file);
  if (!text.ok()) return graphs_fail(text.error().message);
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) return graphs_fail(o.import_file + ": not JSON");
  auto g = hiva::graph_from_json(j);
  if (!g.ok()) return graphs_fail(o.import_file + ": " + g.error().message);
  // The tool code came from elsewhere: it passes the gate a generated tool
  // passes (the static check, then loading it in the sandbox) before any
  // agent may run it.
  hiva::HivaToolSource sandboxed;
  for (const auto& a : g->agents()) {
    if (a.tool_code.empty()) continue;
    if (Status ok = hiva::validate_tool_source(a.tool_code); !ok.ok())
      return graphs_fail(o.import_file + ": agent " + a.id + "'s tool: " + ok.error().message);
    std::promise<company::ToolResult> loaded;
    sandboxed.call(hiva::kValidateTool, json{{"code", a.tool_code}}, company::ToolCallContext{},
                   [&loaded](company::ToolResult r) { loaded.set_value(std::move(r)); });
    const company::ToolResult r = loaded.get_future().get();
    if (!r.ok) return graphs_fail(o.import_file + ": agent " + a.id + "'s tool does not load: " + r.message);
  }
  std::string name = o.import_name;
  if (name.empty()) {
    const auto slash = o.import_file.find_last_of('/');
    name = o.import_file.substr(slash == std::string::npos ? 0 : slash + 1);
    if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
  }
  if (name.empty() || name.find('/') != std::string::npos)
    return graphs_fail("--name: give the graph a name without '/'");
  auto st = no_journal_yet(c.store_path) ? store::JournalStore::open(c.store_path) : open_to_write(c);
  if (!st.ok()) return graphs_fail(st.error().message, 1);
  auto rows = (*st)->state(hiva::kHivaStrategy);
  if (!rows.ok()) return graphs_fail(rows.error().message, 1);
  for (const auto& r : *rows)
    if (r.key == kPrefix + name)
      return graphs_fail("a graph named '" + name + "' is already saved; import it under another --name");
  store::StateRow row{hiva::kHivaStrategy,
                      kPrefix + name,
                      json{{"iteration", 0}, {"graph", hiva::to_json(*g)}, {"imported_from", o.import_file}},
                      "",
                      "import",
                      wall_ms()};
  if (Status saved = (*st)->save_state(row); !saved.ok()) return graphs_fail(saved.error().message, 1);
  std::cout << "imported " << name << ": " << g->agents().size() << " agents, " << g->edges().size() << " edges\n";
  return 0;
}

int graphs_command(const GraphsOptions& o) {
  auto c = load_cli_config(o.common, /*needs_model=*/false);
  if (!c.ok()) return graphs_fail(c.error().message);
  if (!o.import_file.empty()) return import_graph(*c, o);
  if (no_journal_yet(c->store_path)) {
    if (!o.export_name.empty() || !o.name.empty()) return graphs_fail("no journal at " + c->store_path + " yet");
    std::cout << (o.common.json ? "{\"graphs\":[]}" : "no saved graphs yet") << "\n";
    return 0;
  }
  auto st = store::JournalStore::open_read_only(c->store_path);
  if (!st.ok()) return graphs_fail(st.error().message, 1);
  if (!o.export_name.empty()) return export_graph(**st, o);
  if (!o.name.empty()) return show_graph(**st, o.name, o.common.json);
  return list_graphs(**st, o.common.json);
}

const bool graphs_command_registered = register_command(
    "graphs", "HiVA graphs saved by kaisha evolve: list, show one iteration by iteration, export, import",
    [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<GraphsOptions>();
      cmd->footer(
          "Example: kaisha graphs coders   (then: kaisha graphs --export coders --out coders.json)\nMore: "
          "docs/hiva.md");
      cmd->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
      cmd->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
      cmd->add_flag("--json", o->common.json, "machine-readable output");
      cmd->add_option("name", o->name, "show this graph iteration by iteration");
      cmd->add_option("--export", o->export_name, "write this graph's latest version as JSON");
      cmd->add_option("--out", o->out, "the file --export writes (default: stdout)");
      cmd->add_option("--import", o->import_file, "read a graph exported by kaisha graphs --export");
      cmd->add_option("--name", o->import_name, "the name an imported graph is saved under (default: the file's stem)");
      return [o] { return graphs_command(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
