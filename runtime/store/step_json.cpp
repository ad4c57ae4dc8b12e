#include "runtime/store/step_json.hpp"

#include <string>

namespace kaisha::store {

json step_to_json(const StepRow& step, std::string_view time_key) {
  return json{{"seq", step.seq},         {"agent", step.agent},           {"kind", step.kind},
              {"payload", step.payload}, {"tokens_in", step.tokens_in},   {"tokens_out", step.tokens_out},
              {"expense", step.expense}, {std::string(time_key), step.at}};
}

}  // namespace kaisha::store
