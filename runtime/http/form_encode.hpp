// Query-string values as HTML forms and most servers read them.
#pragma once

#include <string>

namespace kaisha::http {

// "a b&c" -> "a+b%26c" (application/x-www-form-urlencoded): letters,
// digits and -_.~ as they are, a space as '+', every other byte as %XX.
std::string form_encode(const std::string& s);

}  // namespace kaisha::http
