#include <sstream>

#include "runtime/core/utf8.hpp"
#include "runtime/hiva/entry/hiva_view.hpp"
#include "runtime/messages/strategy_event.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {

std::string summarise_hiva_result(const nlohmann::json& m, NumberText) {
  if (!m.is_object() || text_field(m, "strategy") != "hiva") return "";
  std::ostringstream o;
  o << "hiva: " << text_field(m, "exit");
  const int64_t first = int_field(m, "first_iteration", -1), last = int_field(m, "last_iteration", -1);
  if (first >= 0 && last >= first)
    o << ", iteration" << (first == last ? " " : "s ") << first << (first == last ? "" : "-" + std::to_string(last));
  if (const int64_t a = int_field(m, "agents", -1); a >= 0) o << ", " << a << " agents";
  if (const int64_t n = int_field(m, "model_calls", -1); n >= 0) o << ", " << n << " model calls";
  return o.str();
}

std::string render_hiva_event(const msg::ProgressEvent& e, NumberText) {
  const msg::StrategyEventName name = msg::strategy_event_name(e.data);
  if (name.strategy != "hiva") return "";
  const std::string who = e.agent.empty() ? "HiVA" : e.agent;
  return "[" + who + "] " + name.event + ": " + utf8::one_line(e.text, 400) + "\n";
}

}  // namespace kaisha::strategy
