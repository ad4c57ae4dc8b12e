#include "runtime/eval/item_record.hpp"

namespace kaisha::eval {

std::string run_key(const std::string& run) { return "run/" + run; }

std::string item_key(const std::string& run, const std::string& item, int repetition) {
  return run_key(run) + "/item/" + item + "/" + std::to_string(repetition);
}

std::string item_task_id(const std::string& run, const std::string& item, int repetition) {
  return "eval-" + run + "-" + std::to_string(repetition) + "-" + item;
}

json to_json(const ItemRecord& r) {
  json j{{"item", r.item},
         {"repetition", r.repetition},
         {"task_id", r.task_id},
         {"task_ok", r.task_ok},
         {"error", r.error},
         {"answer", r.answer},
         {"feedback", r.feedback},
         {"tokens_in", r.tokens_in},
         {"tokens_out", r.tokens_out},
         {"usd", r.usd},
         {"ms", r.ms}};
  j["correct"] = r.correct ? json(*r.correct) : json(nullptr);
  j["score"] = r.score ? json(*r.score) : json(nullptr);
  return j;
}

Result<ItemRecord> item_record_from_json(const json& j) {
  if (!j.is_object()) return Error{"eval", "an item record is not a JSON object"};
  ItemRecord r;
  try {
    r.item = j.at("item").get<std::string>();
    r.repetition = j.at("repetition").get<int>();
    r.task_id = j.value("task_id", "");
    r.task_ok = j.value("task_ok", true);
    r.error = j.value("error", "");
    r.answer = j.value("answer", "");
    r.feedback = j.value("feedback", "");
    if (j.contains("correct") && !j["correct"].is_null()) r.correct = j["correct"].get<bool>();
    if (j.contains("score") && !j["score"].is_null()) r.score = j["score"].get<double>();
    r.tokens_in = j.value("tokens_in", int64_t{0});
    r.tokens_out = j.value("tokens_out", int64_t{0});
    r.usd = j.value("usd", 0.0);
    r.ms = j.value("ms", int64_t{0});
  } catch (const json::exception& e) {
    return Error{"eval", std::string("an item record is malformed: ") + e.what()};
  }
  return r;
}

}  // namespace kaisha::eval
