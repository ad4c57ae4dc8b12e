#include "runtime/pyramid/agent_library.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/confined_fs.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::pyramid {
namespace {

using config::YamlReader;

constexpr int64_t kMaxTurnsLimit = 10000;
constexpr size_t kMaxCandidates = 8;

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string item(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

}  // namespace

std::string candidate_instance(const std::string& agent, size_t index) {
  return agent + "__" + std::to_string(index + 1);
}

const std::vector<std::string>& level0_tools() {
  static const std::vector<std::string> tools = {"file_read",  "file_write",   "dir_list",      "dir_create",
                                                 "file_move",  "execute_code", "execute_shell", "pip_install",
                                                 "web_search", "final_output"};
  return tools;
}

const std::vector<std::string>& judge_tools() {
  static const std::vector<std::string> tools = {"file_read", "dir_list", "execute_code", "final_output"};
  return tools;
}

json LibraryShape::to_json() const {
  return json{{"depth", depth},
              {"fan_out", fan_out},
              {"functional_agents", functional},
              {"branching_factor", branching},
              {"roots", roots}};
}

Result<AgentLibrary> AgentLibrary::load_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) return Error{"config", "agent library " + path + ": " + text.error().message};
  return parse(*text, path);
}

Result<AgentLibrary> AgentLibrary::parse(const std::string& yaml, const std::string& source) {
  return config::guard_yaml(source, [&] { return read(yaml, source); });
}

Result<AgentLibrary> AgentLibrary::read(const std::string& yaml, const std::string& source) {
  auto doc = config::parse_yaml(yaml, source);
  if (!doc.ok()) return doc.error();
  const YAML::Node root = *doc;
  YamlReader r(source);
  if (Status s = r.expect_section(root, "", {"max_children", "agents"}); !s) return s.error();
  AgentLibrary lib;
  int64_t max_children = 5;
  if (Status s = r.optional_int(root, "", "max_children", max_children, 1, 100); !s) return s.error();
  lib.max_children_ = static_cast<int>(max_children);

  const YAML::Node list = root["agents"];
  if (!YamlReader::present(list) || !list.IsSequence() || list.size() == 0)
    return r.error_at(YamlReader::present(list) ? list : root, "agents", "expected a list of agents");

  // First pass: each agent's own fields.
  std::vector<YAML::Node> tool_nodes;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node n = list[i];
    const std::string p = item("agents", i);
    if (Status s = r.expect_section(n, p,
                                    {"name", "level", "description", "responsibility", "workflow", "available_tools",
                                     "model", "candidates", "max_turns", "review"});
        !s)
      return s.error();
    for (const char* key : {"name", "level", "description", "available_tools"})
      if (!YamlReader::present(n[key])) return r.error_at(n, p, std::string("'") + key + "' is required");
    AgentDefinition a;
    a.line = n.Mark().line + 1;
    auto name = r.read_string(n["name"], p + ".name");
    if (!name.ok()) return name.error();
    a.name = *name;
    if (!valid_name(a.name))
      return r.error_at(n["name"], p + ".name",
                        "'" + a.name + "' is not a tool name a model can call (letters, digits, '_' and '-', 1 to 64)");
    if (contains(level0_tools(), a.name))
      return r.error_at(n["name"], p + ".name", "'" + a.name + "' is a level-0 tool's name");
    if (auto seen = index.find(a.name); seen != index.end())
      return r.error_at(n["name"], p + ".name",
                        "'" + a.name + "' is given twice (lines " + std::to_string(lib.agents_[seen->second].line) +
                            " and " + std::to_string(a.line) + "); keep one");
    auto level = r.read_int(n["level"], p + ".level");
    if (!level.ok()) return level.error();
    if (*level == 0)
      return r.error_at(n["level"], p + ".level",
                        "level 0 is the built-in tools; an agent has level -1 (the judge) or >= 1");
    if (*level < -1 || *level > 100)
      return r.error_at(n["level"], p + ".level", "expected -1 (the judge) or a level from 1 to 100");
    a.level = static_cast<int>(*level);
    if (a.level == -1)
      for (const auto& other : lib.agents_)
        if (other.level == -1)
          return r.error_at(
              n["level"], p + ".level",
              "a second judge ('" + other.name + "' is the judge, line " + std::to_string(other.line) + ")");
    auto description = r.read_string(n["description"], p + ".description");
    if (!description.ok()) return description.error();
    a.description = *description;
    if (Status s = r.optional_string(n, p, "responsibility", a.responsibility); !s) return s.error();
    if (Status s = r.optional_string(n, p, "workflow", a.workflow); !s) return s.error();
    if (Status s = r.optional_string(n, p, "model", a.model); !s) return s.error();
    if (YamlReader::present(n["candidates"])) {
      const YAML::Node list = n["candidates"];
      const std::string q = p + ".candidates";
      if (!list.IsSequence()) return r.error_at(list, q, "expected a list of model refs");
      if (Status s = r.optional_strings(n, p, "candidates", a.candidates); !s) return s.error();
      if (a.level < 1)
        return r.error_at(list, q, "the judge runs on one model; candidates are for agents of level >= 1");
      if (!a.model.empty()) return r.error_at(list, q, "give 'model' or 'candidates', not both");
      if (a.candidates.size() < 2 || a.candidates.size() > kMaxCandidates)
        return r.error_at(
            list, q,
            "expected 2 to " + std::to_string(kMaxCandidates) + " models, got " + std::to_string(a.candidates.size()));
      if (!valid_name(candidate_instance(a.name, a.candidates.size() - 1)))
        return r.error_at(list, q,
                          "'" + a.name + "' is too long a name for candidates (each runs as '" +
                              candidate_instance(a.name, 0) + "', ...: 64 characters at most)");
      for (size_t k = 0; k < a.candidates.size(); ++k) {
        if (a.candidates[k].empty()) return r.error_at(list[k], item(q, k), "a model ref cannot be empty");
        for (size_t j = 0; j < k; ++j)
          if (a.candidates[j] == a.candidates[k])
            return r.error_at(list[k], item(q, k), "'" + a.candidates[k] + "' is listed twice");
      }
    }
    if (Status s = r.optional_int(n, p, "max_turns", a.max_turns, 1, kMaxTurnsLimit); !s) return s.error();
    if (!n["available_tools"].IsSequence())
      return r.error_at(n["available_tools"], p + ".available_tools", "expected a list of tool and agent names");
    if (Status s = r.optional_strings(n, p, "available_tools", a.available_tools); !s) return s.error();
    if (YamlReader::present(n["review"])) {
      const YAML::Node steps = n["review"];
      if (!steps.IsSequence())
        return r.error_at(steps, p + ".review", "expected a list of steps, each {file: PATH} or {call: TOOL}");
      for (size_t k = 0; k < steps.size(); ++k) {
        const std::string q = item(p + ".review", k);
        const YAML::Node st = steps[k];
        if (Status s = r.expect_section(st, q, {"file", "call"}); !s) return s.error();
        ReviewStep step;
        if (Status s = r.optional_string(st, q, "file", step.file); !s) return s.error();
        if (Status s = r.optional_string(st, q, "call", step.call); !s) return s.error();
        if (step.file.empty() == step.call.empty())
          return r.error_at(st, q, "give either 'file' (a file the agent must write) or 'call' (a tool it must call)");
        if (!step.file.empty()) {
          auto parts = split_relative(step.file);
          if (!parts.ok() || parts->empty())
            return r.error_at(st["file"], q + ".file", "'" + step.file + "' is not a path inside the task's directory");
          step.file = join_relative(*parts);
        }
        if (!step.call.empty() && (step.call == "final_output" || !contains(a.available_tools, step.call)))
          return r.error_at(st["call"], q + ".call",
                            "'" + step.call + "' is not a tool this agent lists (other than final_output)");
        a.review.push_back(std::move(step));
      }
    }
    index[a.name] = lib.agents_.size();
    tool_nodes.push_back(n["available_tools"]);
    lib.agents_.push_back(std::move(a));
  }

  // A candidate's employee must not take another agent's name.
  for (const auto& a : lib.agents_)
    for (size_t k = 0; k < a.candidates.size(); ++k)
      if (auto other = index.find(candidate_instance(a.name, k)); other != index.end())
        return r.error_at(list[other->second]["name"], item("agents", other->second) + ".name",
                          "'" + other->first + "' is the name " + a.name + "'s candidate " + std::to_string(k + 1) +
                              " runs as; rename one of them");

  // Second pass: every call goes down the pyramid to something that exists.
  std::vector<std::string> known = level0_tools();
  for (const auto& a : lib.agents_) known.push_back(a.name);
  for (size_t i = 0; i < lib.agents_.size(); ++i) {
    const AgentDefinition& a = lib.agents_[i];
    const std::string p = item("agents", i) + ".available_tools";
    std::set<std::string> listed;
    int children = 0;
    for (size_t k = 0; k < a.available_tools.size(); ++k) {
      const std::string& t = a.available_tools[k];
      const YAML::Node at = tool_nodes[i][k];
      const std::string q = item(p, k);
      if (!listed.insert(t).second) return r.error_at(at, q, "'" + t + "' is listed twice");
      if (contains(level0_tools(), t)) {
        if (a.level == -1 && !contains(judge_tools(), t))
          return r.error_at(at, q, "the judge only reads and runs: '" + t + "' is not one of " + joined(judge_tools()));
        continue;
      }
      auto callee = index.find(t);
      if (callee == index.end()) {
        const std::string near = config::closest_key(t, known);
        return r.error_at(
            at, q, "unknown tool or agent '" + t + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
      }
      const AgentDefinition& c = lib.agents_[callee->second];
      if (a.level == -1) return r.error_at(at, q, "the judge calls no agent ('" + t + "')");
      if (c.level == -1) continue;  // every agent may call the judge
      if (c.level >= a.level)
        return r.error_at(at, q,
                          "'" + t + "' (level " + std::to_string(c.level) + ") is not below '" + a.name + "' (level " +
                              std::to_string(a.level) + "): an agent calls only agents of lower levels");
      ++children;
    }
    if (children > lib.max_children_)
      return r.error_at(tool_nodes[i], p,
                        "'" + a.name + "' lists " + std::to_string(children) + " sub-agents, more than max_children (" +
                            std::to_string(lib.max_children_) + "); tools and the judge do not count");
  }
  return lib;
}

std::string ReviewStep::describe() const { return file.empty() ? "call " + call + " with success" : "write " + file; }

const AgentDefinition* AgentLibrary::find(const std::string& name) const {
  for (const auto& a : agents_)
    if (a.name == name) return &a;
  return nullptr;
}

const AgentDefinition* AgentLibrary::judge() const {
  for (const auto& a : agents_)
    if (a.level == -1) return &a;
  return nullptr;
}

std::vector<const AgentDefinition*> AgentLibrary::callees(const AgentDefinition& a) const {
  std::vector<const AgentDefinition*> out;
  for (const auto& t : a.available_tools)
    if (const AgentDefinition* c = find(t)) out.push_back(c);
  return out;
}

LibraryShape AgentLibrary::shape() const {
  LibraryShape s;
  std::set<std::string> called;
  int parents = 0, edges = 0;
  for (const auto& a : agents_) {
    if (a.level < 1) continue;
    int n = 0;
    for (const AgentDefinition* c : callees(a))
      if (c->level >= 1) {
        ++n;
        called.insert(c->name);
      }
    s.fan_out[a.name] = n;
    if (n == 0)
      ++s.functional;
    else {
      ++parents;
      edges += n;
    }
  }
  s.branching = parents ? double(edges) / parents : 0;
  // The longest chain of sub-agent calls; levels strictly fall along it, so
  // the recursion ends.
  std::map<std::string, int> memo;
  std::function<int(const AgentDefinition&)> height = [&](const AgentDefinition& a) {
    if (auto it = memo.find(a.name); it != memo.end()) return it->second;
    int h = 0;
    for (const AgentDefinition* c : callees(a))
      if (c->level >= 1) h = std::max(h, 1 + height(*c));
    return memo[a.name] = h;
  };
  std::vector<const AgentDefinition*> roots;
  for (const auto& a : agents_)
    if (a.level >= 1 && !called.count(a.name)) roots.push_back(&a);
  std::sort(roots.begin(), roots.end(), [](const AgentDefinition* x, const AgentDefinition* y) {
    return x->level != y->level ? x->level > y->level : x->name < y->name;
  });
  for (const AgentDefinition* a : roots) {
    s.roots.push_back(a->name);
    s.depth = std::max(s.depth, height(*a));
  }
  return s;
}

}  // namespace kaisha::pyramid
