// kaisha agents --pools: the pyramid's candidate pools (which candidate
// models of each agent still run, its default, each candidate's windowed Q),
// and the undo of an automatic change by hand: --restore-candidate
// AGENT:MODEL puts a pruned candidate back, --revoke-default AGENT sends the
// agent's calls to its whole pool again. An undo is saved as a new version of
// the pool's strategy state (the change says what was undone), which every
// pyramid company started afterwards reads.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/pyramid/candidate_pool.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {
namespace {

constexpr const char* kPyramid = "pyramid";  // the pyramid's strategy state

int pools_fail(const std::string& message, int code = 2) {
  std::cerr << "kaisha: " << message << "\n";
  return code;
}

std::string agent_of(const std::string& key) { return key.substr(std::string("pool/").size()); }

}  // namespace

int candidate_pools_command(const CommonOptions& o, const std::string& restore, const std::string& revoke) {
  auto c = load_cli_config(o, /*needs_model=*/false);
  if (!c) return pools_fail(c.error().message);
  if (no_journal_yet(c->store_path)) {
    if (!restore.empty() || !revoke.empty())
      return pools_fail("no journal at " + c->store_path + " yet: no pools to change");
    std::cout << (o.json ? "{\"pools\":[]}" : "no candidate pools yet") << "\n";
    return 0;
  }
  auto st = restore.empty() && revoke.empty() ? store::JournalStore::open_read_only(c->store_path) : open_to_write(*c);
  if (!st) return pools_fail(st.error().message, 1);
  auto rows = (*st)->state(kPyramid);
  if (!rows) return pools_fail(rows.error().message, 1);
  pyramid::CandidatePool pool;
  std::vector<std::string> agents;
  for (const auto& r : *rows)
    if (pyramid::CandidatePool::is_state_key(r.key)) {
      pool.seed(r.key, r.value);
      agents.push_back(agent_of(r.key));
    }

  if (!restore.empty() || !revoke.empty()) {
    std::string agent = revoke, model;
    if (!restore.empty()) {
      const auto colon = restore.find(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == restore.size())
        return pools_fail("--restore-candidate: expected AGENT:MODEL (e.g. idea_agent:ollama:qwen3:8b), got '" +
                          restore + "'");
      agent = restore.substr(0, colon);
      model = restore.substr(colon + 1);
    }
    if (std::find(agents.begin(), agents.end(), agent) == agents.end()) {
      std::string known;
      for (const auto& a : agents) known += (known.empty() ? "" : ", ") + a;
      return pools_fail("agent '" + agent + "' has no candidate pool" +
                        (known.empty() ? std::string(" (no agent has one yet)") : " (agents with one: " + known + ")"));
    }
    auto change = pool.undo(agent, model);
    if (!change) return pools_fail(change.error().message);
    const std::string what =
        change->kind == "restored" ? "restored candidate " + change->model : "revoked default " + change->model;
    store::StateRow row{
        kPyramid, pyramid::CandidatePool::state_key(agent), pool.state_of(agent), "", "by hand: " + what, wall_ms()};
    if (Status saved = (*st)->save_state(row); !saved.ok()) return pools_fail(saved.error().message, 1);
    if (o.json)
      std::cout << dump_text(json{{"agent", agent}, {"change", change->to_json()}}) << "\n";
    else
      std::cout << agent << ": " << what
                << (change->kind == "restored" ? "; its calls run it again" : "; its calls run its whole pool again")
                << " (pyramid companies started from now on)\n";
    return 0;
  }

  json out = json::array();
  for (const auto& agent : agents) {
    json state = pool.state_of(agent);
    json candidates = json::object();
    for (const auto& [m, _] : state["verdicts"].items()) candidates[m] = pool.windowed_q(agent, m);
    out.push_back(
        {{"agent", agent}, {"default", state["default"]}, {"pruned", state["pruned"]}, {"windowed_q", candidates}});
  }
  if (o.json) {
    std::cout << dump_text(json{{"pools", out}}) << "\n";
    return 0;
  }
  if (out.empty()) std::cout << "no candidate pools yet\n";
  for (const auto& p : out) {
    std::cout << p["agent"].get<std::string>() << ":";
    if (!p["default"].get<std::string>().empty()) std::cout << "  default " << p["default"].get<std::string>();
    for (const auto& m : p["pruned"]) std::cout << "  pruned " << m.get<std::string>();
    std::cout << "\n";
    for (const auto& [m, q] : p["windowed_q"].items())
      std::cout << "  " << m << "  windowed Q " << q.get<double>() << "\n";
  }
  return 0;
}

}  // namespace kaisha::cli
