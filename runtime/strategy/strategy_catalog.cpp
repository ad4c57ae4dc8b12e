#include "runtime/strategy/strategy_catalog.hpp"

#include <sstream>

namespace kaisha::strategy {
namespace {

using nlohmann::json;

template <typename T>
T field(const json& m, const char* key, T fallback) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

std::string effgen_summary(const json& m, NumberText num) {
  if (!m.is_object()) return "";
  std::ostringstream o;
  o << "effgen: " << field<std::string>(m, "routing_strategy", "?") << ", " << field<long long>(m, "num_subtasks", 0)
    << " subtasks on " << field<long long>(m, "num_sub_agents", 0) << " workers, speedup "
    << num(m.value("speedup", json(1.0))) << ", judge calls " << field<long long>(m, "judge_calls", 0)
    << ", prompt tokens " << num(m.value("prompt_tokens_original", json(0))) << " -> "
    << num(m.value("prompt_tokens_optimized", json(0))) << (field<bool>(m, "fallback", false) ? ", fell back to one agent" : "");
  return o.str();
}

}  // namespace

const std::vector<StrategyInfo>& strategies() {
  static const std::vector<StrategyInfo> all = {
      {"hashiru", "the CEO hires, asks and fires employees under a budget (HASHIRU)", "", false, {"hashiru"}, nullptr},
      {"effgen", "route by complexity, decompose, run subtasks in parallel, audit (effGen)", "effgen", true,
       {"effgen"}, effgen_summary},
      {"auto", "per task: one agent via the CEO, or effgen's plan when the router decomposes", "", true,
       {"hashiru", "effgen"}, nullptr},
  };
  return all;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& s : strategies())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> out;
  for (const auto& s : strategies()) out.push_back(s.name);
  return out;
}

std::string strategy_names_text() {
  const auto names = strategy_names();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::string summarise_result(const json& metadata, NumberText number) {
  if (!metadata.is_object()) return "";
  auto it = metadata.find("strategy");
  if (it == metadata.end() || !it->is_string()) return "";
  const StrategyInfo* s = find_strategy(it->get<std::string>());
  return s && s->summary ? s->summary(metadata, number) : "";
}

}  // namespace kaisha::strategy
