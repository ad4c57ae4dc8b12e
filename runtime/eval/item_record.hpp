// What `kaisha eval` keeps per scored answer and per run, as the "eval"
// strategy state of the journal (docs/eval.md): a run is resumed from these
// rows, so nothing scored is asked or paid for again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/eval/run_summary.hpp"

namespace kaisha::eval {

// The strategy name the rows are kept under.
inline constexpr const char* kEvalState = "eval";

// "run/<run>": the run's record (suite, strategy, limits, session).
std::string run_key(const std::string& run);
// "run/<run>/item/<item>/<repetition>", repetition counted from 1.
std::string item_key(const std::string& run, const std::string& item, int repetition);
// The company task that answers it: "eval-<run>-<repetition>-<item>".
std::string item_task_id(const std::string& run, const std::string& item, int repetition);

struct ItemRecord {
  std::string item;
  int repetition = 1;
  std::string task_id;
  bool task_ok = true;  // false: the task failed (error says why); scored as wrong
  std::string error;
  std::string answer;
  std::optional<bool> correct;  // unset: no verdict
  std::optional<double> score;
  std::string feedback;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double usd = 0;
  int64_t ms = 0;

  ItemOutcome outcome() const { return {correct, tokens_in + tokens_out, usd, ms}; }
};

json to_json(const ItemRecord& r);
// Errors ("eval") name the field that is missing or of the wrong type.
Result<ItemRecord> item_record_from_json(const json& j);

}  // namespace kaisha::eval
