// HALO's agent replies: every parser of runtime/halo/replies takes any bytes
// without throwing and gives a value the driver can use as it is — a score
// in [0, 1] with at most 4 decimals, one of the three judge labels, a
// non-empty list of at most max_roles distinct, non-blank, valid UTF-8
// roles, a letter A-D, a non-empty MATH answer — and a default always comes
// with a problem, which is valid UTF-8 (it goes to the journal). The input
// also drives the answer comparisons the early stop uses.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "runtime/answers/consistency.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/halo/replies/agent_roles.hpp"
#include "runtime/halo/replies/answer_parse.hpp"
#include "runtime/halo/replies/judge_label.hpp"
#include "runtime/halo/replies/next_subtask.hpp"
#include "runtime/halo/replies/prompt_reply.hpp"
#include "runtime/halo/replies/score_reply.hpp"
#include "runtime/halo/replies/task_parse.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;
namespace halo = kaisha::halo;
namespace answers = kaisha::answers;

namespace {

template <class T>
void check_problem(const halo::Parsed<T>& p) {
  if (p.defaulted) check(p.problem.has_value(), "a default comes with a problem");
  if (p.problem) check(!p.problem->empty() && valid_utf8(*p.problem), "a problem is non-empty valid UTF-8");
}

void replies(std::string_view reply) {
  const bool utf8_in = valid_utf8(reply);

  halo::Parsed<double> score = halo::parse_score(reply);
  check_problem(score);
  check(std::isfinite(score.value) && score.value >= 0.0 && score.value <= 1.0, "a score is in [0, 1]");
  check(std::round(score.value * 10000.0) / 10000.0 == score.value, "a score has at most 4 decimals");
  if (score.defaulted) check(score.value == 0.5, "the default score is 0.5");

  halo::Parsed<halo::NodeLabel> label = halo::parse_judge_label(reply);
  check_problem(label);
  check(label.value == halo::NodeLabel::success || label.value == halo::NodeLabel::fail ||
            label.value == halo::NodeLabel::continue_,
        "a label is success, fail or continue");
  if (label.defaulted) check(label.value == halo::NodeLabel::continue_, "the default label is continue");

  // The cap comes from the input so that small and large caps are both tried.
  halo::RoleLimits limits{1 + reply.size() % 4, 8 + reply.size() % 40};
  halo::Parsed<std::vector<std::string>> roles = halo::parse_agent_roles(reply, limits);
  check_problem(roles);
  check(!roles.value.empty() && roles.value.size() <= limits.max_roles, "1..max_roles roles");
  std::unordered_set<std::string> seen;
  for (const std::string& role : roles.value) {
    check(!role.empty() && valid_utf8(role), "a role is non-empty valid UTF-8");
    check(role.size() <= limits.max_role_bytes || role == halo::kDefaultRole, "a role fits max_role_bytes");
    check(role.front() != ' ' && role.back() != ' ', "a role is trimmed");
    for (char c : role) check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F, "a role has no control byte");
    check(seen.insert(kaisha::ascii_lower(role)).second, "roles are distinct");
  }

  const std::string query = "the raw query";
  halo::Parsed<halo::TaskParse> task = halo::parse_task_parse(reply, query);
  check_problem(task);
  for (const std::string* field : {&task.value.task_type, &task.value.core_intent, &task.value.key_details})
    check(valid_utf8(*field), "a task field is valid UTF-8");
  if (!utf8_in) check(task.value.task_type == query, "an invalid reply gives the raw query");

  halo::Parsed<halo::NextSubtask> next = halo::parse_next_subtask(reply, "Q*");
  check_problem(next);
  check(next.value.stop ? next.value.subtask.empty() : !next.value.subtask.empty(),
        "stop has no subtask, anything else has one");
  check(valid_utf8(next.value.subtask), "a subtask is valid UTF-8");
  if (next.defaulted) check(!next.value.stop && next.value.subtask == "Q*", "the default subtask is Q*");

  for (halo::PromptReply kind :
       {halo::PromptReply::generated_template, halo::PromptReply::optimized_template, halo::PromptReply::final_prompt,
        halo::PromptReply::agent_template, halo::PromptReply::agent_optimized, halo::PromptReply::agent_final}) {
    halo::Parsed<std::string> prompt = halo::parse_prompt_reply(kind, reply, "fallback");
    check_problem(prompt);
    check(!prompt.value.empty() && valid_utf8(prompt.value), "a prompt is non-empty valid UTF-8");
  }

  halo::Parsed<std::string> mmlu = halo::parse_mmlu_answer(reply);
  check_problem(mmlu);
  check(mmlu.value.size() == 1 && mmlu.value[0] >= 'A' && mmlu.value[0] <= 'D', "an MMLU answer is A-D");

  halo::Parsed<halo::MathAnswer> math = halo::parse_math_answer(reply);
  check_problem(math);
  check(!math.value.normalized.empty() && valid_utf8(math.value.latex) && valid_utf8(math.value.normalized),
        "a MATH answer is non-empty valid UTF-8");
}

// The input cut into up to four answers, compared as the early stop does.
void comparisons(std::string_view input) {
  std::vector<std::string> parts;
  for (size_t at = 0; at <= input.size() && parts.size() < 4;) {
    size_t bar = input.find('|', at);
    if (bar == std::string_view::npos) bar = input.size();
    parts.emplace_back(input.substr(at, bar - at));
    at = bar + 1;
  }
  for (const std::string& a : parts) {
    if (valid_utf8(a)) check(valid_utf8(answers::normalize_latex(a)), "a normal form of valid text is valid");
    for (const std::string& b : parts) {
      double bleu = answers::sentence_bleu(a, b);
      check(bleu >= 0.0 && bleu <= 100.0 + 1e-9, "BLEU is in [0, 100]");
      check(answers::bleu_match(a, b) == answers::bleu_match(b, a), "bleu_match is symmetric");
    }
    check(answers::bleu_match(a, a) && answers::latex_equivalence(a, a), "an answer matches itself");
  }
  for (answers::Equivalence e :
       {answers::Equivalence::exact, answers::Equivalence::latex, answers::Equivalence::bleu}) {
    answers::Consistency c = answers::check_consistency(parts, answers::ConsistencyOptions{e});
    check(c.total == parts.size() && c.index < parts.size() && c.majority == parts[c.index],
          "the majority is one answer");
    check(c.agreeing >= 1 && c.agreeing <= parts.size(), "support counts the answer itself");
    if (parts.size() < 2) check(!c.stop, "one answer never stops");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  replies(input);
  comparisons(input);
  return 0;
}
