#include <sstream>

#include "runtime/pyramid/entry/pyramid_view.hpp"

namespace kaisha::strategy {

using nlohmann::json;

std::string summarise_pyramid_result(const json& m, NumberText num) {
  if (!m.is_object()) return "";
  try {
    std::ostringstream o;
    o << "pyramid: entered at " << m.at("route").value("agent", std::string("?")) << ", " << m.value("calls", 0LL)
      << " agent calls by " << (m.contains("agents") ? m["agents"].size() : 0) << " agents; largest prompt "
      << num(m.value("largest_prompt_tokens", json(0))) << " tokens, all conversations "
      << num(m.value("history_tokens", json(0))) << " tokens";
    return o.str();
  } catch (const json::exception&) {
    return "";
  }
}

std::string render_pyramid_event(const msg::ProgressEvent& e, NumberText num) {
  std::ostringstream o;
  if (e.kind == msg::EventKind::trigger) {
    o << "[" << e.agent << "] trigger " << e.text << "\n";
    return o.str();
  }
  if (e.kind == msg::EventKind::branches) {
    o << "[" << e.agent << "] branches: " << e.text << "\n";
    try {
      for (const auto& b : e.data.at("branches")) {
        const json& c = b.value("changes", json::object());
        auto count = [&](const char* key) { return c.contains(key) && c[key].is_array() ? c[key].size() : 0; };
        o << "    " << b.value("branch", std::string("?")) << " " << b.value("model", std::string("?")) << ": "
          << b.value("status", std::string("?"));
        if (b.value("status", std::string()) == "error")
          o << " (" << b.value("error_information", std::string()) << ")";
        o << ", " << count("added") << " added, " << count("modified") << " modified, " << count("removed")
          << " removed" << (b.value("merged", false) ? ", merged" : "") << "\n";
      }
    } catch (const json::exception&) {
    }
    return o.str();
  }
  if (e.kind == msg::EventKind::strategy) {
    const std::string event = e.data.value("event", std::string());
    if (event == "merge_plan" || event == "evolution" || event == "judge_failed")
      o << "[" << e.agent << "] "
        << (event == "merge_plan"  ? "merge"
            : event == "evolution" ? "evolution"
                                   : "judge")
        << ": " << e.text << "\n";
    return o.str();
  }
  if (e.kind != msg::EventKind::route) return "";
  o << "[" << e.agent << "] route: " << e.text << "\n";
  try {
    const json& scores = e.data.at("route").at("scores");
    if (scores.is_array() && !scores.empty()) {
      o << "    scores:";
      size_t shown = 0;
      for (const auto& s : scores) {
        if (++shown > 5) break;
        o << " " << s.at("agent").get<std::string>() << "=" << num(s.at("score"));
      }
      o << "\n";
    }
  } catch (const json::exception&) {
  }
  return o.str();
}

}  // namespace kaisha::strategy
