#include "runtime/hiva/graph/graph_json.hpp"

#include <climits>
#include <cstdint>
#include <cmath>
#include <initializer_list>
#include <map>

#include "runtime/core/params_check.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::hiva {
namespace {

Error bad(const std::string& path, const std::string& why) { return Error{"hiva_graph", path + ": " + why}; }

// Reads the fields of one JSON object, naming each by its path in errors.
class FieldReader {
 public:
  FieldReader(const json& object, std::string path) : o_(object), path_(std::move(path)) {}

  std::string at(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  Status only(std::initializer_list<const char*> keys) const {
    for (const auto& [key, value] : o_.items()) {
      bool known = false;
      for (const char* k : keys) known = known || key == k;
      if (!known) return bad(at(utf8::repair(key).c_str()), "unknown field");
    }
    return Status::Ok();
  }

  Result<const json*> field(const char* key) const {
    auto it = o_.find(key);
    if (it == o_.end()) return bad(at(key), "missing");
    return &*it;
  }

  Status text(const char* key, std::string& out, bool non_empty = false) const {
    Result<const json*> v = field(key);
    if (!v) return v.error();
    if (!(*v)->is_string()) return bad(at(key), std::string("expected a string, got ") + json_kind(**v));
    const std::string& s = (*v)->get_ref<const std::string&>();
    if (!utf8::valid(s)) return bad(at(key), "is not valid UTF-8");
    if (non_empty && s.empty()) return bad(at(key), "expected a non-empty string");
    out = s;
    return Status::Ok();
  }

  Status integer(const char* key, int& out, int min) const {
    Result<const json*> v = field(key);
    if (!v) return v.error();
    const json& n = **v;
    std::string expected = "expected an integer >= " + std::to_string(min);
    if (!n.is_number_integer()) return bad(at(key), expected + ", got " + json_kind(n));
    bool too_big = n.is_number_unsigned() && n.get<std::uint64_t>() > static_cast<std::uint64_t>(INT_MAX);
    std::int64_t value = too_big ? INT64_MAX : n.get<std::int64_t>();
    if (value < min) return bad(at(key), expected + ", got " + n.dump());
    if (value > INT_MAX) return bad(at(key), "expected an integer <= " + std::to_string(INT_MAX) + ", got " + n.dump());
    out = static_cast<int>(value);
    return Status::Ok();
  }

  // A finite number, > 0 when `positive`, else >= 0.
  Status number(const char* key, double& out, bool positive) const {
    Result<const json*> v = field(key);
    if (!v) return v.error();
    const json& n = **v;
    std::string expected = positive ? "expected a number > 0" : "expected a number >= 0";
    if (!n.is_number()) return bad(at(key), expected + ", got " + json_kind(n, JsonIntegers::as_numbers));
    double d = n.get<double>();
    if (!std::isfinite(d)) return bad(at(key), expected + ", got " + (std::isnan(d) ? "NaN" : "an infinity"));
    if (d < 0 || (positive && d == 0)) return bad(at(key), expected + ", got " + n.dump());
    out = d;
    return Status::Ok();
  }

 private:
  const json& o_;
  std::string path_;
};

std::string item(const char* list, std::size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

Result<GraphAgent> read_agent(const json& j, const std::string& path) {
  if (!j.is_object()) return bad(path, std::string("expected an object, got ") + json_kind(j));
  FieldReader r(j, path);
  GraphAgent a;
  Status s = r.only({"id", "role", "prompt", "prompt_version", "tool_code", "tool_description", "tool_version", "alpha",
                     "beta", "visits", "last_update", "last_gradient", "created", "history", "tool_versions"});
  if (s) s = r.text("id", a.id, true);
  if (s) s = r.text("role", a.role);
  if (s) s = r.text("prompt", a.prompt);
  if (s) s = r.integer("prompt_version", a.prompt_version, 1);
  if (s) s = r.text("tool_code", a.tool_code);
  if (s) s = r.text("tool_description", a.tool_description);
  if (s) s = r.integer("tool_version", a.tool_version, 0);
  if (s) s = r.number("alpha", a.alpha, true);
  if (s) s = r.number("beta", a.beta, true);
  if (s) s = r.integer("visits", a.visits, 0);
  if (s) s = r.integer("last_update", a.last_update, 0);
  if (s) s = r.text("last_gradient", a.last_gradient);
  if (s) s = r.integer("created", a.created, 0);
  if (!s) return s.error();
  // Version 2: the tasks it worked on (Ψ3); a version 1 file has none.
  if (auto it = j.find("history"); it != j.end()) {
    if (!it->is_array()) return bad(r.at("history"), std::string("expected an array, got ") + json_kind(*it));
    if (it->size() > kMaxTaskRecords)
      return bad(r.at("history"), "has " + std::to_string(it->size()) + " records; at most " +
                                      std::to_string(kMaxTaskRecords) + " are kept");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string at = r.at("history") + "[" + std::to_string(i) + "]";
      const json& h = (*it)[i];
      if (!h.is_object()) return bad(at, std::string("expected an object, got ") + json_kind(h));
      FieldReader hr(h, at);
      TaskRecord t;
      Status hs = hr.only({"task", "success"});
      if (hs) hs = hr.text("task", t.task);
      if (hs) hs = hr.number("success", t.success, false);
      if (hs && t.success > 1) hs = bad(hr.at("success"), "expected a number in [0, 1], got " + h["success"].dump());
      if (!hs) return hs.error();
      a.history.push_back(std::move(t));
    }
  }
  // Version 3: its tool's versions, the current one last without its code.
  if (auto it = j.find("tool_versions"); it != j.end()) {
    const std::string at = r.at("tool_versions");
    if (!it->is_array()) return bad(at, std::string("expected an array, got ") + json_kind(*it));
    if (it->size() > kMaxAgentToolVersions)
      return bad(at, "has " + std::to_string(it->size()) + " versions; at most " +
                         std::to_string(kMaxAgentToolVersions) + " are kept");
    json full = *it;
    if (!full.empty() && full.back().is_object() && !full.back().contains("code")) full.back()["code"] = a.tool_code;
    auto versions = company::ToolVersions::from_json(full, at, kMaxAgentToolVersions);
    if (!versions) return Error{"hiva_graph", versions.error().message};
    if (!versions->empty() && versions->latest()->version != a.tool_version)
      return bad(at, "the last version is " + std::to_string(versions->latest()->version) + " but tool_version is " +
                         std::to_string(a.tool_version));
    if (!versions->empty() && versions->latest()->code != a.tool_code)
      return bad(at, "the last version's code is not tool_code");
    a.tool_versions = std::move(versions).value();
  }
  return a;
}

Result<GraphEdge> read_edge(const json& j, const std::string& path) {
  if (!j.is_object()) return bad(path, std::string("expected an object, got ") + json_kind(j));
  FieldReader r(j, path);
  GraphEdge e;
  Status s = r.only({"from", "to", "synergy", "alpha", "beta", "uses", "successes", "routed"});
  if (s) s = r.text("from", e.from, true);
  if (s) s = r.text("to", e.to, true);
  if (s) s = r.number("synergy", e.synergy, false);
  if (s) s = r.number("alpha", e.alpha, true);
  if (s) s = r.number("beta", e.beta, true);
  if (s) s = r.integer("uses", e.uses, 0);
  if (s) s = r.integer("successes", e.successes, 0);
  if (s) s = r.integer("routed", e.routed, 0);
  if (!s) return s.error();
  if (e.successes > e.uses)
    return bad(r.at("successes"),
               std::to_string(e.successes) + " is more than the edge's uses (" + std::to_string(e.uses) + ")");
  return e;
}

Status check_header(const json& j) {
  if (!j.is_object()) return bad("graph", std::string("expected an object, got ") + json_kind(j));
  FieldReader r(j, "");
  std::string format;
  if (Status s = r.text("format", format); !s) return s;
  if (format != kGraphFormat)
    return bad("format", "expected \"" + std::string(kGraphFormat) + "\", got \"" + utf8::shorten(format, 60) + "\"");
  int version = 0;
  if (Status s = r.integer("version", version, 1); !s) return s;
  if (version > kGraphFormatVersion)
    return Error{"hiva_graph", "graph format version " + std::to_string(version) +
                                   " is newer than this kaisha reads (" + std::to_string(kGraphFormatVersion) +
                                   "); upgrade kaisha"};
  return r.only({"format", "version", "agents", "edges", "knowledge_weights"});
}

// The optional top-level "knowledge_weights": four numbers >= 0 summing to 1.
Result<std::vector<double>> read_weights(const json& j) {
  auto it = j.find("knowledge_weights");
  if (it == j.end()) return std::vector<double>{};
  if (!it->is_array() || it->size() != 4)
    return bad("knowledge_weights", "expected a list of four numbers, got " + utf8::shorten(it->dump(), 60));
  std::vector<double> w;
  double sum = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const json& x = (*it)[k];
    if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 0)
      return bad("knowledge_weights[" + std::to_string(k) + "]", "expected a number >= 0, got " + x.dump());
    w.push_back(x.get<double>());
    sum += w.back();
  }
  if (std::fabs(sum - 1.0) > 1e-9)
    return bad("knowledge_weights", it->dump() + " sums to " + json(sum).dump() + "; the weights must sum to 1");
  return w;
}

Result<const json*> list(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return bad(key, "missing");
  if (!it->is_array()) return bad(key, std::string("expected an array, got ") + json_kind(*it));
  return &*it;
}

}  // namespace

json to_json(const AgentGraph& graph) {
  // Field by field: an initializer list builds every pair twice, and this is
  // written for every forward pass's event.
  json agents = json::array();
  for (const GraphAgent& a : graph.agents()) {
    json o = json::object();
    o["id"] = a.id;
    o["role"] = a.role;
    o["prompt"] = a.prompt;
    o["prompt_version"] = a.prompt_version;
    o["tool_code"] = a.tool_code;
    o["tool_description"] = a.tool_description;
    o["tool_version"] = a.tool_version;
    o["alpha"] = a.alpha;
    o["beta"] = a.beta;
    o["visits"] = a.visits;
    o["last_update"] = a.last_update;
    o["last_gradient"] = a.last_gradient;
    o["created"] = a.created;
    json history = json::array();
    for (const TaskRecord& t : a.history) history.push_back(json{{"task", t.task}, {"success", t.success}});
    o["history"] = std::move(history);
    json versions = a.tool_versions.to_json();
    // The current version's code is tool_code: not written twice.
    if (!versions.empty() && a.tool_versions.latest()->code == a.tool_code) versions.back().erase("code");
    o["tool_versions"] = std::move(versions);
    agents.push_back(std::move(o));
  }
  json edges = json::array();
  for (const GraphEdge& e : graph.edges()) {
    json o = json::object();
    o["from"] = e.from;
    o["to"] = e.to;
    o["synergy"] = e.synergy;
    o["alpha"] = e.alpha;
    o["beta"] = e.beta;
    o["uses"] = e.uses;
    o["successes"] = e.successes;
    o["routed"] = e.routed;
    edges.push_back(std::move(o));
  }
  json g = json::object();
  g["format"] = kGraphFormat;
  g["version"] = kGraphFormatVersion;
  g["agents"] = std::move(agents);
  g["edges"] = std::move(edges);
  if (!graph.knowledge_weights().empty()) g["knowledge_weights"] = graph.knowledge_weights();
  return g;
}

Result<AgentGraph> graph_from_json(const json& j) {
  if (Status s = check_header(j); !s) return s.error();
  Result<const json*> agent_list = list(j, "agents");
  if (!agent_list) return agent_list.error();
  Result<const json*> edge_list = list(j, "edges");
  if (!edge_list) return edge_list.error();

  std::vector<GraphAgent> agents;
  std::map<std::string, std::size_t> first_at;
  for (std::size_t i = 0; i < (*agent_list)->size(); ++i) {
    Result<GraphAgent> a = read_agent((**agent_list)[i], item("agents", i));
    if (!a) return a.error();
    auto [seen, fresh] = first_at.emplace(a->id, i);
    if (!fresh)
      return bad(item("agents", i) + ".id", "\"" + a->id + "\" is also the id of " + item("agents", seen->second));
    agents.push_back(std::move(*a));
  }
  for (std::string_view id : {AgentGraph::kSource, AgentGraph::kAggregator})
    if (!first_at.count(std::string(id))) return bad("agents", "no agent with id \"" + std::string(id) + "\"");

  AgentGraph graph = AgentGraph::singleton(agents[first_at[std::string(AgentGraph::kSource)]],
                                           agents[first_at[std::string(AgentGraph::kAggregator)]]);
  (void)graph.remove_edge(AgentGraph::kSource, AgentGraph::kAggregator);  // the file says which edges exist
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (agents[i].id == AgentGraph::kSource || agents[i].id == AgentGraph::kAggregator) continue;
    if (Status s = graph.add_agent(std::move(agents[i])); !s) return bad(item("agents", i), s.error().message);
  }
  for (std::size_t i = 0; i < (*edge_list)->size(); ++i) {
    Result<GraphEdge> e = read_edge((**edge_list)[i], item("edges", i));
    if (!e) return e.error();
    if (Status s = graph.add_edge(std::move(*e)); !s) return bad(item("edges", i), s.error().message);
  }
  if (Result<std::vector<std::string>> order = graph.topological_order(); !order)
    return bad("edges", order.error().message);
  Result<std::vector<double>> weights = read_weights(j);
  if (!weights) return weights.error();
  graph.set_knowledge_weights(std::move(weights).value());
  return graph;
}

}  // namespace kaisha::hiva
