// The driver shapes (runtime/driver/driver_shape.hpp): every strategy's
// driver is one of them, and a type missing a part is neither.
#include <gtest/gtest.h>

#include "runtime/driver/driver_shape.hpp"
#include "runtime/effgen/effgen_driver.hpp"
#include "runtime/hashiru/hashiru_driver.hpp"
#include "runtime/pyramid/pyramid_driver.hpp"

namespace kaisha::driver {
namespace {

static_assert(TaskDriver<effgen::EffgenDriver>);
static_assert(TaskDriver<pyramid::PyramidDriver>);
static_assert(SessionDriver<hashiru::HashiruDriver>);
static_assert(!TaskDriver<hashiru::HashiruDriver>);

struct NoCancel {
  Effects start() { return {}; }
  Effects on(const Outcome&) { return {}; }
};
struct WrongResult {
  Effects start() { return {}; }
  Effects on(const Outcome&) { return {}; }
  bool cancel(const std::string&) { return true; }
};
struct Counting {
  int fed = 0;
  Effects start() { return {Finish{true, "started"}}; }
  Effects on(const Outcome&) { return ++fed, Effects{}; }
  Effects cancel(const std::string& why) { return {Finish{false, why}}; }
};

static_assert(!TaskDriver<NoCancel>);
static_assert(!TaskDriver<WrongResult>);
static_assert(TaskDriver<Counting> && !SessionDriver<Counting>);

TEST(DriverShapeTest, ATaskDriverIsUsedThroughItsThreeCalls) {
  Counting d;
  auto run = [](TaskDriver auto& driver) {
    Effects all = driver.start();
    for (auto& e : driver.on(BudgetRead{1, json::object()})) all.push_back(e);
    for (auto& e : driver.cancel("stop")) all.push_back(e);
    return all;
  };
  const Effects effects = run(d);
  ASSERT_EQ(effects.size(), 2u);
  EXPECT_EQ(d.fed, 1);
  EXPECT_EQ(std::get<Finish>(effects[1]).text, "stop");
}

}  // namespace
}  // namespace kaisha::driver
