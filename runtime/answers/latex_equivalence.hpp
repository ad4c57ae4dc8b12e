// LaTeX-normalised answer equality for maths answers, in the manner of the
// Hendrycks MATH benchmark's is_equiv / _strip_string (written from its
// documented behaviour). Two answers are equivalent when their normal forms
// are byte-equal; nothing is evaluated ("0.25" and "\frac14" differ).
//
// normalize_latex applies, in this order:
//   1. trim; take the content of the last \boxed{...}, \boxed ... (up to the
//      next '$' or the end) or \fbox{...}; else of a leading bare boxed{...}
//      or boxed$...$ (HALO's MATH answer parser writes its answer that way);
//      an unbalanced box is left as it is;
//   2. unwrap one pair of whole-answer math delimiters: $...$, $$...$$,
//      \(...\), \[...\];
//   3. drop line breaks, "\!", turn "\\" into "\", tfrac/dfrac into frac;
//   4. drop \left and \right (not \leftarrow, \rightarrow: only when no
//      letter follows), "^{\circ}", "^\circ", "\$";
//   5. drop a trailing \text{...} group (units) when something precedes it,
//      repeatedly ("5\text{ cm}" -> "5", "\text{(A)}" stays);
//   6. drop every "\%" and then a trailing "%";
//   7. add a leading zero to a '.' followed by a digit at the start or after
//      whitespace, '{', '(', '[', '-', '+', '=' or ',' (".5" -> "0.5");
//   8. with exactly one '=' whose left side is at most 2 bytes once trimmed,
//      keep the right side ("x = 5" -> "5", "k=2x" -> "2x"; "f(x)=2" stays);
//   9. drop all whitespace;
//  10. \sqrt followed by a letter or digit gets braces around that one
//      character ("\sqrt2" -> "\sqrt{2}");
//  11. \frac followed by a letter or digit gets braces around that and the
//      next character ("\frac12" -> "\frac{1}{2}", "\frac1{2}" ->
//      "\frac{1}{2}"); a form that does not fit is left as it is;
//  12. "0.5" becomes "\frac{1}{2}";
//  13. "a/b" with a and b plain integers (optional '-', no leading zero)
//      becomes "\frac{a}{b}".
// Where the original normaliser mangles (removing \right out of \rightarrow,
// "\sqrt{[}3]", "\sqrt{ }2" from "\sqrt 2"), the steps above keep the text
// intact instead. Every step is one pass: linear in the answer's length.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kaisha::answers {

// Step 1 alone: the content of the box, or nullopt when there is none.
std::optional<std::string> boxed_content(std::string_view answer);

// The normal form described above.
std::string normalize_latex(std::string_view answer);

// normalize_latex(a) == normalize_latex(b).
bool latex_equivalence(std::string_view a, std::string_view b);

}  // namespace kaisha::answers
