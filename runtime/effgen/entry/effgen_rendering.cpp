#include <sstream>

#include "runtime/core/utf8.hpp"
#include "runtime/effgen/entry/effgen_view.hpp"

namespace kaisha::strategy {
namespace {

using nlohmann::json;

template <typename T>
T field_or(const json& m, const char* key, T fallback) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

}  // namespace

std::string summarise_effgen_result(const json& m, NumberText num) {
  if (!m.is_object()) return "";
  std::ostringstream o;
  o << "effgen: " << field_or<std::string>(m, "routing_strategy", "?") << ", "
    << field_or<long long>(m, "num_subtasks", 0) << " subtasks on " << field_or<long long>(m, "num_sub_agents", 0)
    << " workers, speedup " << num(m.value("speedup", json(1.0))) << ", judge calls "
    << field_or<long long>(m, "judge_calls", 0) << ", prompt tokens " << num(m.value("prompt_tokens_original", json(0)))
    << " -> " << num(m.value("prompt_tokens_optimized", json(0)))
    << (field_or<bool>(m, "fallback", false) ? ", fell back to one agent" : "");
  return o.str();
}

std::string render_effgen_event(const msg::ProgressEvent& e, NumberText num) {
  using K = msg::EventKind;
  std::ostringstream o;
  switch (e.kind) {
    case K::routing: {
      o << "[" << e.agent << "] routing: " << e.text << "\n";
      const json& d = e.data;
      if (d.is_object() && d.contains("score") && d["score"].is_object() && d["score"].contains("factors") &&
          d["score"]["factors"].is_object()) {
        o << "    factors:";
        for (const auto& [k, v] : d["score"]["factors"].items()) o << " " << k << "=" << num(v);
        o << "\n";
      }
      break;
    }
    case K::plan:
      o << "[" << e.agent << "] plan: " << e.text << "\n";
      break;
    case K::subtask:
      o << "  ◦ " << utf8::one_line(e.text, 240) << "\n";
      break;
    case K::synthesis:
      o << "[" << e.agent << "] " << e.text << "\n";
      break;
    default:
      break;
  }
  return o.str();
}

}  // namespace kaisha::strategy
