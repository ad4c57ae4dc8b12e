// Turning a fetched web page into what a model can use (GetWebsite,
// hashiru.md §3.3): the visible text of the HTML, the parts a simple CSS
// selector picks, and HASHIRU's extractive summary. Plain text processing;
// no HTML library, no network.
#pragma once

#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::tools {

// The page's visible text: scripts, styles, comments and tags dropped,
// entities decoded, one line per block element, blank lines removed.
std::string html_to_text(const std::string& html);

// The inner HTML of every element matching `selector`, joined by newlines.
// Supported selectors: "tag", "#id", ".class", "tag.class", "tag#id"; any
// other syntax is an Error (code "selector") saying what is supported.
Result<std::string> select_css(const std::string& html, const std::string& selector);

// HASHIRU's summary: the three highest-scoring sentences, scored by the
// normalised frequency of their words, a preference for ~15-word sentences
// and the words they share with the previous sentence.
std::string summarize_text(const std::string& text);

// A fetched page's bytes as UTF-8: well-formed sequences kept, every other
// byte read as the Latin-1 character of that value, so a page in a legacy
// charset keeps its accented letters where U+FFFD would erase them (see
// runtime/core/utf8.hpp, Invalid::latin1).
std::string to_utf8(const std::string& bytes);

}  // namespace kaisha::tools
