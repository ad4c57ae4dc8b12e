// The task lifecycle shared by the protocol adapters (runtime/company/company_service.hpp).
#include "runtime/company/company_service.hpp"

#include <gtest/gtest.h>

namespace kaisha::company {
namespace {

TEST(TaskLifecycle, TerminalEventsEndTheTaskAndOthersMeanWorking) {
  using K = msg::EventKind;
  EXPECT_EQ(state_after_event(K::final), TaskState::completed);
  EXPECT_EQ(state_after_event(K::error), TaskState::failed);
  EXPECT_EQ(state_after_event(K::canceled), TaskState::canceled);
  for (K kind : {K::task, K::tool_call, K::agent_error, K::summary, K::reflection, K::verdict, K::note})
    EXPECT_EQ(state_after_event(kind), TaskState::working) << kind;
}

TEST(TaskLifecycle, TerminalEventKindsRoundTrip) {
  for (TaskState s : {TaskState::completed, TaskState::failed, TaskState::canceled})
    EXPECT_EQ(state_after_event(terminal_event_kind(s)), s) << to_string(s);
}

}  // namespace
}  // namespace kaisha::company
