#include "cli/progress_printer.hpp"

#include <iostream>
#include <sstream>

#include "runtime/core/json_text.hpp"
#include "runtime/messages/progress_event_json.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/economy/amount.hpp"
#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::cli {
namespace {

std::string shorten(const std::string& s, size_t n = 240) { return utf8::one_line(s, n); }

std::string num(const json& v) {
  if (!v.is_number()) return v.dump();
  return economy::format_amount(v.get<double>());
}

}  // namespace

std::string budget_line(const json& b) {
  if (!b.is_object() || b.empty()) return "";
  std::ostringstream o;
  o << "resource " << num(b.value("current_resource_usage", json(0))) << "/"
    << num(b.value("total_resource_budget", json(0))) << " | expense $" << num(b.value("current_expense", json(0)))
    << "/$" << num(b.value("total_expense_budget", json(0))) << " ($"
    << num(b.value("current_remaining_expense_budget", json(0))) << " left)";
  return o.str();
}

void ProgressPrinter::emit(const msg::ProgressEvent& e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (json_) {
    std::cout << msg::progress_event_line(e) << "\n" << std::flush;
    return;
  }
  if (quiet_) return;
  std::ostream& o = std::cerr;
  const json& d = e.data;
  using K = msg::EventKind;
  switch (e.kind) {
    case K::task:
      o << "» task: " << shorten(e.text) << "\n";
      break;
    case K::thinking:
      o << "[" << e.agent << "] " << shorten(e.text, 400) << "\n";
      break;
    case K::tool_call:
      o << "[" << e.agent << "] " << shorten(e.text) << "\n";
      break;
    case K::tool_result:
      o << "[" << e.agent << "]   " << shorten(e.text) << "\n";
      break;
    case K::hire:
      o << "  + hired " << e.text << " | " << budget_line(d.value("budget", json())) << "\n";
      break;
    case K::fire:
      o << "  - fired " << e.text << " | " << budget_line(d.value("budget", json())) << "\n";
      break;
    case K::ask:
      o << "  → " << shorten(e.text) << "\n";
      break;
    case K::answer:
      o << "  ← " << shorten(e.text) << "\n    (" << e.tokens_in << " in / " << e.tokens_out << " out tokens, $"
        << num(json(e.usd)) << ", " << d.value("latency_ms", 0) << " ms) | " << budget_line(d.value("budget", json()))
        << "\n";
      break;
    case K::refusal:
      o << "  ✗ refused: " << e.text << "\n";
      break;
    case K::retry:
      o << "  ↻ " << e.text << "\n";
      break;
    case K::breaker:
      o << "  ⏸ [" << e.agent << "] " << e.text << "\n";
      break;
    case K::usage:
      o << "  · " << e.text << ", $" << num(json(e.usd)) << " | " << budget_line(d.value("budget", json())) << "\n";
      break;
    case K::error:
      o << "  ! " << e.agent << ": " << shorten(e.text, 400) << "\n";
      break;
    case K::verdict:
      o << "  ⚖ judge: " << shorten(e.text) << " (Q=" << num(d.value("quality", json(0))) << ")\n";
      break;
    case K::final:
      o << "» done in " << d.value("wall_ms", 0) << " ms: " << e.tokens_in << " in / " << e.tokens_out
        << " out tokens, $" << num(json(e.usd)) << "\n";
      if (d.contains("metadata")) {
        const std::string line = strategy::summarise_result(d["metadata"], num);
        if (!line.empty()) o << "  " << line << "\n";
      }
      break;
    default: {
      // A strategy's own structure is rendered by its catalog entry.
      std::string lines =
          msg::event_kind_group(e.kind) == msg::EventGroup::strategy ? strategy::render_event(e, num) : std::string();
      if (lines.empty())
        lines = "[" + e.agent + "] " + std::string(msg::event_kind_name(e.kind)) + ": " + shorten(e.text) + "\n";
      o << lines;
    }
  }
  o << std::flush;
}

}  // namespace kaisha::cli
