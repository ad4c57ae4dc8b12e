#include "runtime/telemetry/company_view.hpp"

#include <cstdio>
#include <ctime>
#include <sstream>

#include "runtime/core/utf8.hpp"
#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::telemetry {
namespace {

std::string str(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

double num(const json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

std::string money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.4f", usd);
  return buf;
}

std::string number_text(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.dump();
}

std::string clock_text(int64_t at_ms) {
  if (at_ms <= 0) return "--:--:--";
  std::time_t t = static_cast<std::time_t>(at_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

// One line, newlines folded, cut to at most `width` bytes plus a one-column
// ellipsis: never wider than `width` columns (a wide character takes more
// bytes than columns), never cut inside a character.
std::string fit(std::string line, size_t width) {
  for (char& c : line)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (line.size() <= width) return line;
  return utf8::shorten(line, width > 1 ? width - 1 : 1);
}

bool is_step(msg::EventKind k) {
  using K = msg::EventKind;
  switch (k) {
    case K::ask:
    case K::answer:
    case K::tool_call:
    case K::tool_result:
    case K::verdict:
    case K::hire:
    case K::fire:
    case K::refusal:
    case K::retry:
    case K::placed:
    case K::node_down:
    case K::rehire:
    case K::agent_error:
    case K::error:
      return true;
    default:
      return msg::event_kind_group(k) == msg::EventGroup::strategy;
  }
}

}  // namespace

AgentView& CompanyView::agent(const std::string& name) {
  AgentView& a = agents_[name];
  if (a.name.empty()) {
    a.name = name;
    a.state = "hired";
  }
  return a;
}

TaskView* CompanyView::task(const std::string& id) {
  if (id.empty()) return nullptr;
  for (auto& t : tasks_)
    if (t.id == id) return &t;
  tasks_.push_back(TaskView{id, "", "working"});
  if (tasks_.size() > 100) tasks_.erase(tasks_.begin());
  return &tasks_.back();
}

void CompanyView::apply(const msg::ProgressEvent& e) {
  using K = msg::EventKind;
  ++events_;
  const json& d = e.data;
  if (d.is_object() && d.contains("budget") && d["budget"].is_object() && !d["budget"].empty()) budget_ = d["budget"];
  const std::string who = str(d, "agent");
  TaskView* t = task(e.task_id);
  if (t && t->started_ms == 0) t->started_ms = e.at_ms;
  switch (e.kind) {
    case K::task:
      if (t) t->input = e.text;
      break;
    case K::hire:
      if (!who.empty()) {
        AgentView& a = agent(who);
        a.state = "hired";
        if (std::string m = str(d, "base_model"); !m.empty()) a.model = m;
        if (!e.node.empty()) a.node = e.node;
      }
      break;
    case K::fire:
      if (!who.empty()) agent(who).state = "fired";
      break;
    case K::placed:
    case K::rehire:
      if (!who.empty()) {
        AgentView& a = agent(who);
        if (std::string n = str(d, "node"); !n.empty())
          a.node = n;
        else if (!e.node.empty())
          a.node = e.node;
        if (e.kind == K::rehire) a.state = "hired";
      }
      break;
    case K::node_down:
      if (!who.empty()) agent(who).state = "lost";
      break;
    case K::ask:
      if (!who.empty()) {
        AgentView& a = agent(who);
        a.state = "asked";
        ++a.asks;
      }
      break;
    case K::answer: {
      const std::string name = !who.empty() ? who : e.agent;
      if (!name.empty()) {
        AgentView& a = agent(name);
        a.state = "answered";
        a.tokens_in += e.tokens_in;
        a.tokens_out += e.tokens_out;
        a.usd += e.usd;
      }
      break;
    }
    case K::refusal:
      refusals_.push_back(clock_text(e.at_ms) + " " + (e.agent.empty() ? "" : e.agent + ": ") + e.text);
      if (refusals_.size() > kRefusalsShown) refusals_.pop_front();
      break;
    default:
      break;
  }
  if (t && msg::ends_task(e)) {
    t->state = e.kind == K::final ? "completed" : e.kind == K::canceled ? "canceled" : "failed";
    t->tokens_in = e.tokens_in;
    t->tokens_out = e.tokens_out;
    t->usd = e.usd;
    t->ended_ms = e.at_ms;
  }
  if (t && is_step(e.kind)) {
    std::string line;
    if (msg::event_kind_group(e.kind) == msg::EventGroup::strategy) {
      line = strategy::render_event(e, number_text);
      while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
      const size_t start = line.find_first_not_of(' ');
      line = start == std::string::npos ? "" : line.substr(start);
    }
    if (line.empty())
      line = std::string(msg::event_kind_name(e.kind)) + " " + (e.agent.empty() ? "" : "[" + e.agent + "] ") + e.text;
    t->steps.push_back(clock_text(e.at_ms) + " " + line);
    if (t->steps.size() > kStepsShown) t->steps.pop_front();
  }
}

std::string CompanyView::render(size_t width, int64_t now_ms) const {
  std::ostringstream o;
  auto line = [&](const std::string& s) { o << fit(s, width) << "\n"; };
  if (budget_.empty()) {
    line("ledgers   (no event has carried them yet)");
  } else {
    line("ledgers   resource " + number_text(budget_.value("current_resource_usage", json(0))) + "/" +
         number_text(budget_.value("total_resource_budget", json(0))) + " | expense " +
         money(num(budget_, "current_expense")) + "/" + money(num(budget_, "total_expense_budget")) + " (" +
         money(num(budget_, "current_remaining_expense_budget")) + " left) | reserved " +
         money(num(budget_, "reserved_expense")) + ", " + number_text(budget_.value("inflight_asks", json(0))) +
         " ask(s) in flight");
  }
  line("");
  std::map<std::string, std::vector<const AgentView*>> by_node;
  for (const auto& [_, a] : agents_) by_node[a.node].push_back(&a);
  line("agents    " + std::to_string(agents_.size()) + " by node");
  for (const auto& [node, list] : by_node) {
    line("  " + (node.empty() ? std::string("[this node]") : "[" + node + "]"));
    for (const AgentView* a : list) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%-9s %3d ask(s) %8lld in %7lld out  ", a->state.c_str(), a->asks,
                    static_cast<long long>(a->tokens_in), static_cast<long long>(a->tokens_out));
      line("    " + utf8::shorten(a->name, 18) + std::string(a->name.size() < 18 ? 18 - a->name.size() : 1, ' ') + " " +
           utf8::shorten(a->model.empty() ? "-" : a->model, 22) + "  " + buf + money(a->usd));
    }
  }
  line("");
  const size_t first = tasks_.size() > kTasksShown ? tasks_.size() - kTasksShown : 0;
  line("tasks     " + std::to_string(tasks_.size()) + " seen");
  for (size_t i = first; i < tasks_.size(); ++i) {
    const TaskView& t = tasks_[i];
    const int64_t end = t.ended_ms ? t.ended_ms : now_ms;
    const double secs = t.started_ms && end >= t.started_ms ? static_cast<double>(end - t.started_ms) / 1000.0 : 0;
    char took[32];
    std::snprintf(took, sizeof took, "%.1f s", secs);
    line("  " + t.id + " [" + t.state + "] " + took + ", " + std::to_string(t.tokens_in + t.tokens_out) + " tokens, " +
         money(t.usd) + "  " + t.input);
  }
  for (auto it = tasks_.rbegin(); it != tasks_.rend(); ++it) {
    if (it->state != "working") continue;
    line("");
    line("running   " + it->id);
    for (const auto& s : it->steps) line("  " + s);
    break;
  }
  line("");
  line("refusals  " + std::string(refusals_.empty() ? "none" : ""));
  for (const auto& r : refusals_) line("  " + r);
  return o.str();
}

}  // namespace kaisha::telemetry
