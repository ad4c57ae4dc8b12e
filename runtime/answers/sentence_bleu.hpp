// Sentence-level BLEU (0..100) as sacreBLEU 2.x's sentence_bleu computes it
// with its defaults: 4-gram, modified (clipped) precisions, effective order,
// 'exp' smoothing, brevity penalty, 13a-style tokens. The definition
// followed is sacreBLEU's BLEU.compute_bleu:
//   * no n-gram of any order matches                -> 0;
//   * orders with no n-gram in the hypothesis (it is shorter than n) are
//     left out of the mean (effective order);
//   * an order with matches m of total t has precision 100*m/t; an order
//     with no match has 100/(2^k * t), k counting the zero-match orders so
//     far (1 for the first, 2 for the second...): the 'exp' method, NIST
//     mteval-v13a's smoothing;
//   * BLEU = BP * exp(mean of ln precision), BP = exp(1 - r/c) when the
//     hypothesis length c is below the reference length r (0 when c = 0),
//     else 1.
//
// Tokens (bleu_tokens), a code-point reading of the 13a tokenizer:
//   * whitespace separates tokens (what Python's str.split() splits on:
//     ASCII whitespace, U+001C..U+001F, U+0085, U+00A0, U+1680,
//     U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000);
//   * each of  ! " # $ % & ( ) * + / : ; < = > ? @ [ \ ] ^ _ ` { | } ~  is a
//     token of its own;
//   * '.' and ',' are tokens of their own unless an ASCII digit comes both
//     before and after them ("3.14" and "1,000" stay whole, "end." splits);
//   * '-' is a token of its own after an ASCII digit ("1-2" -> 1 - 2), else
//     part of the word ("well-known" stays whole); the apostrophe is
//     always part of the word ("don't");
//   * each CJK ideograph (U+3400..U+4DBF, U+4E00..U+9FFF, U+F900..U+FAFF,
//     U+20000..U+3FFFF), kana (U+3040..U+30FF, U+31F0..U+31FF), CJK
//     symbol or punctuation (U+3001..U+303F) and full/half-width form
//     (U+FF00..U+FFEF) is a token of its own: such text has no spaces, and
//     13a would make a whole sentence one token (sacreBLEU's 'zh' tokenizer
//     splits Chinese characters the same way);
//   * every other code point (letters of any script, digits, emoji) joins
//     the word it is in. An ill-formed UTF-8 sequence counts as one such
//     code point; tokens never split a code point.
// Not done: 13a's SGML entity unescaping (&quot; ...) and joining of
// "-\n" line-break hyphens; model answers are not SGML.
#pragma once

#include <string_view>
#include <vector>

namespace kaisha::answers {

inline constexpr double kBleuMatchThreshold = 70.0;  // HALO's BLEU_THERSHOLD (0.7 x 100)

// The tokens of `text` (views into it), as described above.
std::vector<std::string_view> bleu_tokens(std::string_view text);

// BLEU of `hypothesis` against the single `reference`, in [0, 100].
// Linear in the lengths (n-grams are hashed, not compared pairwise).
double sentence_bleu(std::string_view hypothesis, std::string_view reference);

// HALO's code / open-ended equivalence: BLEU >= threshold. BLEU is not
// symmetric (the brevity penalty and the precisions look from the
// hypothesis), while agreement between two answers must not depend on which
// came first; so each side is scored against the other and the higher score
// counts. Identical texts always match (sacreBLEU scores two empty texts 0).
bool bleu_match(std::string_view a, std::string_view b, double threshold = kBleuMatchThreshold);

}  // namespace kaisha::answers
