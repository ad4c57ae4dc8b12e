// The task lifecycle shared by the protocol adapters (runtime/company/company_service.hpp).
#include "runtime/company/company_service.hpp"

#include <gtest/gtest.h>

namespace kaisha::company {
namespace {

TEST(TaskLifecycle, TerminalEventsEndTheTaskAndOthersMeanWorking) {
  EXPECT_EQ(state_after_event("final"), TaskState::completed);
  EXPECT_EQ(state_after_event("error"), TaskState::failed);
  EXPECT_EQ(state_after_event("canceled"), TaskState::canceled);
  for (const char* kind : {"task", "tool_call", "agent_error", "summary", "reflection", "verdict", ""})
    EXPECT_EQ(state_after_event(kind), TaskState::working) << kind;
}

TEST(TaskLifecycle, TerminalEventKindsRoundTrip) {
  for (TaskState s : {TaskState::completed, TaskState::failed, TaskState::canceled})
    EXPECT_EQ(state_after_event(terminal_event_kind(s)), s) << to_string(s);
}

}  // namespace
}  // namespace kaisha::company
