// MockMatcher: picks the rule of a MockScript that answers a chat request and
// turns a reply into a ChatResponse. Holds the per-rule use counters for
// `times`; every method is thread-safe (the server calls it from many threads).
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/llm/chat.hpp"
#include "runtime/mockllm/mock_script.hpp"

namespace kaisha::mockllm {

// What rules are matched against, computed once per request.
struct MatchContext {
  std::string model;
  std::string system;          // system messages joined with "\n\n"
  std::string last_user;       // content of the last user message ("" if none)
  std::string last_tool;       // content of the last tool-result message
  std::string last_tool_name;  // name of the tool whose result is last
  std::string last_role;       // role of the last message ("" when there is none)
  int turn = 0;                // assistant messages already in the request
  bool has_tools = false;
  const llm::ChatRequest* request = nullptr;

  static MatchContext of(const llm::ChatRequest& request);
  // "role: content" of the last message, cut to ~200 bytes, for logs and errors.
  std::string last_message_summary() const;
};

bool rule_matches(const MockMatch& match, const MatchContext& ctx);

// "{{last_user}}", "{{last_tool}}", "{{model}}", "{{system}}" replaced.
std::string expand_template(const std::string& text, const MatchContext& ctx);

// Every "{{bytes:E6 97 FF}}" in an encoded response body replaced by those
// raw bytes (hex, space-separated): how a script sends ill-formed UTF-8,
// which no JSON encoder writes. The marker passes the JSON encoding
// unchanged, so it works in non-streamed replies (a stream cuts the text
// into pieces that may split it).
std::string insert_raw_bytes(std::string body);

// The response for `reply` to the request behind `ctx`: templates expanded,
// fresh tool-call ids, finish_reason "tool_calls" when it calls tools, usage
// as scripted or estimated (or marked absent with omit_usage).
llm::ChatResponse build_response(const MockReply& reply, const MatchContext& ctx);

class MockMatcher {
 public:
  explicit MockMatcher(MockScript script);

  struct Pick {
    const MockRule* rule = nullptr;    // nullptr: no rule matched
    size_t index = 0;                  // of `rule` in script().rules
    std::string label;                 // rule label, "default_reply" or ""
    const MockReply* reply = nullptr;  // rule's reply or the default reply
    const MockFault* fault = nullptr;  // rule's fault
  };

  // The first rule, in order, whose conditions hold and whose `times` are not
  // used up; taking it uses one of its times. Falls back to default_reply;
  // an empty Pick (no reply, no fault) when nothing applies.
  Pick pick(const MatchContext& ctx);

  // Forgets all uses, so every `times` starts again.
  void reset();

  const MockScript& script() const { return script_; }

 private:
  const MockScript script_;
  mutable std::mutex mu_;
  std::vector<int> used_;  // per rule
};

}  // namespace kaisha::mockllm
