#include <sstream>

#include "runtime/core/utf8.hpp"
#include "runtime/halo/entry/halo_view.hpp"
#include "runtime/messages/strategy_event.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {

std::string summarise_halo_result(const nlohmann::json& m, NumberText) {
  if (!m.is_object()) return "";
  std::ostringstream o;
  o << "halo: " << text_field(m, "exit");
  if (const int64_t k = int_field(m, "subtasks", -1); k >= 0) o << ", " << k << (k == 1 ? " subtask" : " subtasks");
  if (const int64_t n = int_field(m, "model_calls", -1); n >= 0) o << ", " << n << " model calls";
  if (const int64_t a = int_field(m, "agents_hired", -1); a >= 0) o << ", " << a << " agents hired";
  return o.str() == "halo: " ? "" : o.str();
}

std::string render_halo_event(const msg::ProgressEvent& e, NumberText) {
  const msg::StrategyEventName name = msg::strategy_event_name(e.data);
  if (name.strategy != "halo") return "";
  const std::string who = e.agent.empty() ? "HALO" : e.agent;
  return "[" + who + "] " + name.event + ": " + utf8::one_line(e.text, 400) + "\n";
}

}  // namespace kaisha::strategy
