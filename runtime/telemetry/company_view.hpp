// CompanyView is what `kaisha watch` shows: a company's state folded from
// its progress events alone. The org chart (every agent by the node it runs
// on, with its model, what it is doing and what it has cost), the tasks and
// the running one's latest steps, the ledgers as the last event that
// carried them left them, and the refusals as they happened.
//
// It trusts nothing in an event: a field that is missing or of another type
// leaves the view as it was. Not thread-safe: one reader applies and renders.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::telemetry {

struct AgentView {
  std::string name;
  std::string node;   // "" = the process that reports (the CEO's)
  std::string model;  // as the hire reported it, "" when unknown
  std::string state;  // hired | asked | answered | fired | lost
  int asks = 0;
  int64_t tokens_in = 0, tokens_out = 0;
  double usd = 0;
};

struct TaskView {
  std::string id;
  std::string input;
  std::string state;  // working | completed | failed | canceled
  int64_t tokens_in = 0, tokens_out = 0;
  double usd = 0;
  int64_t started_ms = 0, ended_ms = 0;
  std::deque<std::string> steps;  // its latest steps, one line each, oldest first
};

class CompanyView {
 public:
  static constexpr size_t kStepsShown = 8;
  static constexpr size_t kRefusalsShown = 5;
  static constexpr size_t kTasksShown = 5;

  void apply(const msg::ProgressEvent& e);

  // The screen: `width` columns (lines are cut to fit, at code-point
  // boundaries), `now_ms` for the running task's age.
  std::string render(size_t width, int64_t now_ms) const;

  const std::map<std::string, AgentView>& agents() const { return agents_; }
  const std::vector<TaskView>& tasks() const { return tasks_; }
  const json& budget() const { return budget_; }
  const std::deque<std::string>& refusals() const { return refusals_; }
  uint64_t events() const { return events_; }

 private:
  AgentView& agent(const std::string& name);
  TaskView* task(const std::string& id);

  std::map<std::string, AgentView> agents_;
  std::vector<TaskView> tasks_;  // in the order they started
  json budget_ = json::object();
  std::deque<std::string> refusals_;
  uint64_t events_ = 0;
};

}  // namespace kaisha::telemetry
