#include "runtime/core/once_callback.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace kaisha {
namespace {

TEST(OnceCallback, RunsOnceWithTheFirstValue) {
  std::vector<std::string> got;
  int fallbacks_made = 0;
  OnceCallback<std::string> cb([&](std::string v) { got.push_back(std::move(v)); },
                               [&] {
                                 ++fallbacks_made;
                                 return std::string("dropped");
                               });
  OnceCallback<std::string> copy = cb;
  cb("first");
  copy("second");
  cb = {};
  copy = {};  // the last copy goes: no fallback, it already ran
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "first");
  EXPECT_EQ(fallbacks_made, 0);  // made only when needed
}

TEST(OnceCallback, RunsWithTheFallbackWhenTheLastCopyIsDroppedUncalled) {
  std::vector<std::string> got;
  {
    OnceCallback<std::string> cb([&](std::string v) { got.push_back(std::move(v)); },
                                 [] { return std::string("dropped"); });
    std::function<void()> holder = [cb] { cb("never"); };
    EXPECT_TRUE(got.empty());  // copies are alive: nothing yet
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "dropped");
}

TEST(OnceCallback, EmptyOneIgnoresCalls) {
  OnceCallback<int> cb;
  cb(1);  // must not crash
  SUCCEED();
}

TEST(BlockingAnswer, WaitReturnsTheValueSetFromAnotherThread) {
  BlockingAnswer<int> answer;
  OnceCallback<int> cb = answer.callback([] { return -1; });
  std::thread t([cb] { cb(42); });
  EXPECT_EQ(answer.wait(), 42);
  t.join();
}

TEST(BlockingAnswer, WaitReturnsTheFallbackWhenTheCallbackIsDropped) {
  BlockingAnswer<std::string> answer;
  std::thread t([cb = answer.callback([] { return std::string("stopped"); })]() mutable { cb = {}; });
  EXPECT_EQ(answer.wait(), "stopped");
  t.join();
}

}  // namespace
}  // namespace kaisha
