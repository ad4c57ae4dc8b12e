#include "runtime/answers/equivalence.hpp"

#include <string>

#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::answers {

std::string_view to_string(Equivalence e) {
  switch (e) {
    case Equivalence::exact:
      return "exact";
    case Equivalence::latex:
      return "latex";
    case Equivalence::bleu:
      return "bleu";
  }
  return "unknown";
}

Result<Equivalence> parse_equivalence(std::string_view word) {
  std::string w = ascii_lower(trim(word));
  for (Equivalence e : {Equivalence::exact, Equivalence::latex, Equivalence::bleu})
    if (w == to_string(e)) return e;
  return Error{"config", "answer equivalence \"" + std::string(word) + "\" is not one of: exact, latex, bleu"};
}

bool exact_match(std::string_view a, std::string_view b) { return trim(a) == trim(b); }

bool equivalent(Equivalence e, std::string_view a, std::string_view b, double bleu_threshold) {
  switch (e) {
    case Equivalence::exact:
      return exact_match(a, b);
    case Equivalence::latex:
      return latex_equivalence(a, b);
    case Equivalence::bleu:
      return bleu_match(a, b, bleu_threshold);
  }
  return false;
}

}  // namespace kaisha::answers
