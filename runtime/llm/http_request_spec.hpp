// HttpRequestSpec: one HTTP request described as plain data. A dialect builds
// it (runtime/llm, no network code); the HTTP client sends it. Keeping the two
// apart lets the wire formats be tested without a socket.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kaisha::llm {

struct HttpRequestSpec {
  std::string method = "POST";
  std::string url;  // absolute, e.g. "http://127.0.0.1:11434/api/chat"
  // In order; names as the provider documents them. Duplicates are allowed.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // already encoded (JSON for every dialect)
};

}  // namespace kaisha::llm
