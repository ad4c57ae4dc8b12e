#include "runtime/driver/replay_log.hpp"

#include <gtest/gtest.h>

#include "runtime/driver/outcome_codec.hpp"

namespace kaisha::driver {
namespace {

TEST(ReplayLog, KeepsOutcomesInTheirOrderAndFindsThemById) {
  auto log = ReplayLog::from_records({encode(BudgetRead{2, json{{"n", 1}}}),
                                      encode(HireAnswered{1, true, false, "", json::object()}),
                                      encode(BudgetRead{2, json{{"n", 2}}})});
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_EQ(log->size(), 2u);  // one effect has one outcome: the repeat is not fed
  EXPECT_TRUE(std::holds_alternative<BudgetRead>(log->outcomes()[0]));
  EXPECT_TRUE(std::holds_alternative<HireAnswered>(log->outcomes()[1]));
  EXPECT_TRUE(log->answered(1));
  EXPECT_TRUE(log->answered(2));
  EXPECT_FALSE(log->answered(3));
  EXPECT_EQ(std::get<BudgetRead>(*log->outcome(2)).view, (json{{"n", 1}}));
  EXPECT_EQ(log->outcome(3), nullptr);
}

TEST(ReplayLog, ARecordItCannotReadNamesItsPlace) {
  auto log = ReplayLog::from_records({encode(BudgetRead{1}), "{"});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("outcome 2"), std::string::npos) << log.error().message;
}

TEST(ReplayLog, HiresAndFiresAreTakenOnceEachInTheLedgersOrder) {
  ReplayLog log;
  EXPECT_TRUE(log.empty());
  log.ledger_hire("Worker1");
  log.ledger_fire("Worker1");
  log.ledger_hire("Worker1");
  log.ledger_hire("翻訳者");
  EXPECT_FALSE(log.take_fire("Worker1"));  // its next event is a hire
  EXPECT_TRUE(log.take_hire("Worker1"));
  EXPECT_FALSE(log.take_hire("Worker1"));
  EXPECT_TRUE(log.take_fire("Worker1"));
  EXPECT_TRUE(log.take_hire("Worker1"));
  EXPECT_FALSE(log.take_hire("Worker1"));  // all taken: a new hire goes to the ledger
  EXPECT_FALSE(log.take_fire("Worker2"));
  EXPECT_TRUE(log.take_hire("翻訳者"));
  EXPECT_TRUE(log.empty());
}

}  // namespace
}  // namespace kaisha::driver
