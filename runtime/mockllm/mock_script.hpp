// MockScript: the rules the mock LLM server answers from, loaded from YAML.
//
//   defaults: { latency_ms: 0 }
//   rules:                       # first matching rule wins, in order
//     - name: ceo-opens
//       match: { model: gemini-2.0-flash, system: "re:You are the CEO", turn: 0 }
//       times: 1                 # usable this often, then skipped
//       reply: { text: "Hello {{last_user}}", tool_calls: [...], usage: {...} }
//       # "{{bytes:E6 97}}" in a text goes out as those raw bytes (non-streamed
//       # replies): ill-formed UTF-8, see insert_raw_bytes in mock_matcher.hpp
//     - match: { model: flaky }
//       fault: { status: 429, retry_after: 1 }
//   default_reply: { text: "..." }
//
// Match conditions (all optional, all given ones must hold):
//   model, last_tool_name, last_role   exact text, or "re:<regex>" (regex_search)
//   system, last_user, last_tool, any  substring, or "re:<regex>"
//   turn                               number of assistant messages in the request
//   has_tools                          whether the request offers tools
// Unknown keys and ill-typed values are errors naming file:line and the key,
// so a typo never silently turns a rule into a catch-all.
#pragma once

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha::mockllm {

// A text condition: exact / substring text, or a regex written "re:<regex>".
struct TextPattern {
  std::string source;                       // as written in the script
  std::shared_ptr<const std::regex> regex;  // set for "re:" patterns

  // `whole`: plain text must equal `value` (else: be contained in it).
  bool matches(std::string_view value, bool whole) const;
};

struct MockMatch {
  std::optional<TextPattern> model, system, last_user, last_tool, last_tool_name, last_role, any;
  std::optional<int> turn;
  std::optional<bool> has_tools;
};

struct MockToolCall {
  std::string name;
  // JSON text. A YAML mapping is converted to JSON whose string values may use
  // templates; a YAML string is sent verbatim (how a script sends malformed
  // arguments).
  std::string arguments;
  bool verbatim = false;
};

struct MockReply {
  std::string text;  // may use {{last_user}} {{last_tool}} {{model}} {{system}}
  std::vector<MockToolCall> tool_calls;
  std::optional<llm::Usage> usage;  // absent: estimated from the texts
  bool omit_usage = false;          // true: the response carries no usage at all
  std::optional<int> latency_ms;
};

struct MockFault {
  int status = 0;                  // 0: none (kind only); else the HTTP status sent
  std::optional<int> retry_after;  // seconds, sent as Retry-After
  // "" (status only), "hang", "malformed_json", "cut_stream" or "close".
  std::string kind;
  std::optional<int> latency_ms;
};

struct MockRule {
  std::string name;  // "" when unnamed; the log then says "rule #<index+1>"
  int line = 0;      // 1-based line of the rule in its script
  MockMatch match;
  std::optional<int> times;  // absent: unlimited
  std::optional<MockReply> reply;
  std::optional<MockFault> fault;  // exactly one of reply / fault is set

  std::string label(size_t index) const;
};

struct MockScript {
  std::string source;  // file name (or the name given to parse_mock_script)
  int default_latency_ms = 0;
  std::vector<MockRule> rules;
  std::optional<MockReply> default_reply;
};

// Parses script `text`; `source_name` prefixes error positions. Errors have
// code "config" and read "<source>:<line>: <what>".
Result<MockScript> parse_mock_script(std::string_view text, const std::string& source_name = "<script>");

// Reads and parses the file at `path`.
Result<MockScript> load_mock_script(const std::string& path);

}  // namespace kaisha::mockllm
