#include "cli/progress_printer.hpp"

#include <iostream>
#include <sstream>

#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/economy/amount.hpp"
#include "runtime/strategy/strategy_catalog.hpp"

namespace kaisha::cli {
namespace {

std::string shorten(const std::string& s, size_t n = 240) {
  std::string one = s;
  for (char& c : one)
    if (c == '\n') c = ' ';
  return utf8::shorten(one, n);
}

std::string num(const json& v) {
  if (!v.is_number()) return v.dump();
  return economy::format_amount(v.get<double>());
}

}  // namespace

std::string budget_line(const json& b) {
  if (!b.is_object() || b.empty()) return "";
  std::ostringstream o;
  o << "resource " << num(b.value("current_resource_usage", json(0))) << "/"
    << num(b.value("total_resource_budget", json(0))) << " | expense $"
    << num(b.value("current_expense", json(0))) << "/$" << num(b.value("total_expense_budget", json(0)))
    << " ($" << num(b.value("current_remaining_expense_budget", json(0))) << " left)";
  return o.str();
}

void ProgressPrinter::emit(const msg::ProgressEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (json_) {
    json j = {{"event", e.kind}, {"agent", e.agent}, {"text", e.text}, {"data", e.data},
              {"session", e.session_id}, {"task", e.task_id}, {"at_ms", e.at_ms}};
    std::cout << dump_text(j) << "\n" << std::flush;
    return;
  }
  if (quiet_) return;
  std::ostream& o = std::cerr;
  const json& d = e.data;
  if (e.kind == "task") o << "» task: " << shorten(e.text) << "\n";
  else if (e.kind == "thinking") o << "[" << e.agent << "] " << shorten(e.text, 400) << "\n";
  else if (e.kind == "tool_call") o << "[" << e.agent << "] " << shorten(e.text) << "\n";
  else if (e.kind == "tool_result") o << "[" << e.agent << "]   " << shorten(e.text) << "\n";
  else if (e.kind == "hire") o << "  + hired " << e.text << " | " << budget_line(d.value("budget", json())) << "\n";
  else if (e.kind == "fire") o << "  - fired " << e.text << " | " << budget_line(d.value("budget", json())) << "\n";
  else if (e.kind == "ask") o << "  → " << shorten(e.text) << "\n";
  else if (e.kind == "answer")
    o << "  ← " << shorten(e.text) << "\n    (" << d.value("input_tokens", 0) << " in / "
      << d.value("output_tokens", 0) << " out tokens, $" << num(d.value("expense", json(0))) << ", "
      << d.value("latency_ms", 0) << " ms) | " << budget_line(d.value("budget", json())) << "\n";
  else if (e.kind == "refusal") o << "  ✗ refused: " << e.text << "\n";
  else if (e.kind == "memories") o << "[" << e.agent << "] " << shorten(e.text, 400) << "\n";
  else if (e.kind == "retry") o << "  ↻ " << e.text << "\n";
  else if (e.kind == "reflection") o << "[" << e.agent << "] " << e.text << "\n";
  else if (e.kind == "summary") o << "[" << e.agent << "] " << e.text << "\n";
  else if (e.kind == "usage")
    o << "  · " << e.text << ", $" << num(d.value("expense", json(0))) << " | "
      << budget_line(d.value("budget", json())) << "\n";
  else if (e.kind == "error") o << "  ! " << e.agent << ": " << shorten(e.text, 400) << "\n";
  else if (e.kind == "routing") {
    o << "[" << e.agent << "] routing: " << e.text << "\n";
    if (d.contains("score") && d["score"].contains("factors")) {
      o << "    factors:";
      for (const auto& [k, v] : d["score"]["factors"].items()) o << " " << k << "=" << num(v);
      o << "\n";
    }
  }
  else if (e.kind == "plan") o << "[" << e.agent << "] plan: " << e.text << "\n";
  else if (e.kind == "subtask") o << "  ◦ " << shorten(e.text) << "\n";
  else if (e.kind == "verdict") o << "  ⚖ judge: " << shorten(e.text) << " (Q=" << num(d.value("quality", json(0))) << ")\n";
  else if (e.kind == "synthesis") o << "[" << e.agent << "] " << e.text << "\n";
  else if (e.kind == "final") {
    o << "» done in " << d.value("wall_ms", 0) << " ms: " << d.value("tokens_in", 0) << " in / "
      << d.value("tokens_out", 0) << " out tokens, $" << num(d.value("expense", json(0))) << "\n";
    if (d.contains("metadata")) {
      const std::string line = strategy::summarise_result(d["metadata"], num);
      if (!line.empty()) o << "  " << line << "\n";
    }
  } else o << "[" << e.agent << "] " << e.kind << ": " << shorten(e.text) << "\n";
  o << std::flush;
}

}  // namespace kaisha::cli
