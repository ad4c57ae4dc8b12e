// HiVA's agent replies: every parser of runtime/hiva/replies takes any bytes
// without throwing and gives a value the driver can use as it is — valid
// UTF-8 text, a topology decision among the five with its argument where
// one is required, a parallelizability score in [0, 1], a reward of 0 or 1
// — and a default always comes with a problem, which is valid UTF-8 (it goes
// to the journal). The input also goes through the tool-code gate.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/hiva/replies/agent_feedback.hpp"
#include "runtime/hiva/replies/free_text.hpp"
#include "runtime/hiva/replies/parallelizability.hpp"
#include "runtime/hiva/replies/reward_reply.hpp"
#include "runtime/hiva/replies/tagged_reply.hpp"
#include "runtime/hiva/replies/teacher_review.hpp"
#include "runtime/hiva/replies/tool_code.hpp"
#include "runtime/hiva/replies/tool_validation.hpp"
#include "runtime/hiva/replies/topology_choice.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;
namespace hiva = kaisha::hiva;

namespace {

template <class T>
void check_problem(const hiva::Parsed<T>& p) {
  if (p.defaulted) check(p.problem.has_value(), "a default comes with a problem");
  if (p.problem) check(!p.problem->empty() && valid_utf8(*p.problem), "a problem is non-empty valid UTF-8");
}

void text(const hiva::Parsed<std::string>& p) {
  check_problem(p);
  check(valid_utf8(p.value), "a text value is valid UTF-8");
}

void replies(std::string_view reply) {
  text(hiva::parse_feedback(reply));
  text(hiva::parse_free_text(reply, "agent output"));
  hiva::Parsed<std::string> instruction = hiva::parse_instruction(reply, "the input");
  text(instruction);
  check(!instruction.value.empty(), "an instruction is never empty");
  hiva::Parsed<std::string> prompt = hiva::parse_new_agent_prompt(reply, "the description");
  text(prompt);
  check(!prompt.value.empty(), "a new agent's prompt is never empty");

  hiva::Parsed<std::optional<std::string>> improved = hiva::parse_improved_variable(reply);
  check_problem(improved);
  if (improved.value)
    check(!improved.value->empty() && valid_utf8(*improved.value), "a rewrite is non-empty valid UTF-8");
  else
    check(improved.problem.has_value(), "no change comes with a problem");

  hiva::Parsed<hiva::AgentFeedback> feedback = hiva::parse_agent_feedback(reply);
  check_problem(feedback);
  for (const std::string* f : {&feedback.value.system_prompt, &feedback.value.tool, &feedback.value.overall})
    check(valid_utf8(*f), "a feedback field is valid UTF-8");

  hiva::Parsed<hiva::TopologyReply> decision = hiva::parse_topology_decision(reply);
  check_problem(decision);
  const hiva::TopologyReply& d = decision.value;
  check(d.choice == hiva::TopologyChoice::add_parallel || d.choice == hiva::TopologyChoice::add_serial ||
            d.choice == hiva::TopologyChoice::remove_successor ||
            d.choice == hiva::TopologyChoice::connect_to_aggregator || d.choice == hiva::TopologyChoice::no_change,
        "a decision is one of the five");
  check(valid_utf8(d.argument), "a decision's argument is valid UTF-8");
  if (d.choice == hiva::TopologyChoice::add_parallel || d.choice == hiva::TopologyChoice::add_serial ||
      d.choice == hiva::TopologyChoice::remove_successor)
    check(!d.argument.empty(), "ADD_* and REMOVE_SUCCESSOR have an argument");
  if (decision.defaulted)
    check(d.choice == hiva::TopologyChoice::no_change && d.argument.empty(), "the default decision is NO_CHANGE");
  check(d.target == hiva::RemoveTarget::id || d.target == hiva::RemoveTarget::index ||
            d.target == hiva::RemoveTarget::least_visited,
        "a remove target is one of the three");

  hiva::Parsed<hiva::Parallelizability> par = hiva::parse_parallelizability(reply);
  check_problem(par);
  check(std::isfinite(par.value.score) && par.value.score >= 0.0 && par.value.score <= 1.0, "a score is in [0, 1]");
  check(par.value.subtasks >= 0 && par.value.subtasks <= 100, "subtasks are in [0, 100]");
  check(par.value.score == hiva::parallelizability_score(par.value), "the score follows the documented mapping");
  check(valid_utf8(hiva::describe(par.value)), "a description is valid UTF-8");

  hiva::Parsed<hiva::Reward> reward = hiva::parse_reward(reply);
  check_problem(reward);
  check(reward.value.value == 0 || reward.value.value == 1, "a reward is 0 or 1");
  if (reward.value.label)
    check(reward.value.value == (*reward.value.label == hiva::RewardClass::critical ? 0 : 1),
          "critical is 0, the others 1");
  if (reward.defaulted) check(reward.value.value == 1, "the default reward is 1");

  hiva::Parsed<hiva::TeacherReview> review = hiva::parse_teacher_review(reply);
  check_problem(review);
  check(valid_utf8(review.value.feedback), "the teacher's feedback is valid UTF-8");

  hiva::Parsed<std::string> code = hiva::parse_tool_code(reply);
  text(code);
  for (std::string_view source : {std::string_view(code.value), reply}) {
    kaisha::Status gate = hiva::validate_tool_source(source);
    if (!gate.ok())
      check(gate.error().code == "tool" && !gate.error().message.empty() && valid_utf8(gate.error().message),
            "a refused tool says why, in valid UTF-8");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  replies(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
