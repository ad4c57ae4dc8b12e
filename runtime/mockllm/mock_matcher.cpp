#include "runtime/mockllm/mock_matcher.hpp"

#include <atomic>
#include <cstdlib>
#include <sstream>

#include "runtime/core/json.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::mockllm {

using llm::Role;

MatchContext MatchContext::of(const llm::ChatRequest& request) {
  MatchContext c;
  c.request = &request;
  c.model = request.model;
  c.has_tools = !request.tools.empty();
  const auto& ms = request.messages;
  for (size_t i = 0; i < ms.size(); ++i) {
    const auto& m = ms[i];
    switch (m.role) {
      case Role::system:
        if (!c.system.empty()) c.system += "\n\n";
        c.system += m.content;
        break;
      case Role::user:
        c.last_user = m.content;
        break;
      case Role::assistant:
        ++c.turn;
        break;
      case Role::tool: {
        c.last_tool = m.content;
        c.last_tool_name = m.name;
        if (c.last_tool_name.empty()) {  // find the call it answers
          for (size_t k = i; k-- > 0 && c.last_tool_name.empty();)
            for (const auto& call : ms[k].tool_calls)
              if (call.id == m.tool_call_id) c.last_tool_name = call.name;
        }
        break;
      }
    }
  }
  if (!ms.empty()) c.last_role = llm::to_string(ms.back().role);
  return c;
}

std::string MatchContext::last_message_summary() const {
  if (!request || request->messages.empty()) return "(no messages)";
  const auto& m = request->messages.back();
  std::string s = std::string(llm::to_string(m.role)) + ": " + m.content;
  if (m.content.empty() && !m.tool_calls.empty()) s += "(tool call " + m.tool_calls[0].name + ")";
  s = utf8::shorten(s, 200, "...");
  return s;
}

bool rule_matches(const MockMatch& m, const MatchContext& c) {
  if (m.model && !m.model->matches(c.model, true)) return false;
  if (m.system && !m.system->matches(c.system, false)) return false;
  if (m.last_user && !m.last_user->matches(c.last_user, false)) return false;
  if (m.last_tool && !m.last_tool->matches(c.last_tool, false)) return false;
  if (m.last_tool_name && !m.last_tool_name->matches(c.last_tool_name, true)) return false;
  if (m.last_role && !m.last_role->matches(c.last_role, true)) return false;
  if (m.turn && *m.turn != c.turn) return false;
  if (m.has_tools && *m.has_tools != c.has_tools) return false;
  if (m.any) {
    bool found = false;
    if (c.request)
      for (const auto& msg : c.request->messages) found = found || m.any->matches(msg.content, false);
    if (!found) return false;
  }
  return true;
}

std::string expand_template(const std::string& text, const MatchContext& ctx) {
  if (text.find("{{") == std::string::npos) return text;
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string key = text.substr(open + 2, close - open - 2);
    while (!key.empty() && key.front() == ' ') key.erase(0, 1);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    const std::string* value = key == "last_user"   ? &ctx.last_user
                               : key == "last_tool" ? &ctx.last_tool
                               : key == "model"     ? &ctx.model
                               : key == "system"    ? &ctx.system
                                                    : nullptr;
    out.append(text, pos, open - pos);
    if (value)
      out += *value;
    else
      out.append(text, open, close + 2 - open);  // unknown: leave as written
    pos = close + 2;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

std::string insert_raw_bytes(std::string body) {
  constexpr std::string_view kOpen = "{{bytes:";
  for (size_t open = body.find(kOpen); open != std::string::npos; open = body.find(kOpen, open)) {
    const size_t close = body.find("}}", open);
    if (close == std::string::npos) break;
    std::string raw;
    std::istringstream hex(body.substr(open + kOpen.size(), close - open - kOpen.size()));
    for (std::string b; hex >> b;) raw += static_cast<char>(std::strtoul(b.c_str(), nullptr, 16) & 0xFF);
    body.replace(open, close + 2 - open, raw);
    open += raw.size();
  }
  return body;
}

namespace {

json expand_json(const json& j, const MatchContext& ctx) {
  if (j.is_string()) return expand_template(j.get<std::string>(), ctx);
  if (j.is_array() || j.is_object()) {
    json out = j;
    for (auto& [k, v] : out.items()) v = expand_json(v, ctx);
    return out;
  }
  return j;
}

std::string next_call_id() {
  static std::atomic<uint64_t> n{1};
  return "call_mock_" + std::to_string(n++);
}

}  // namespace

llm::ChatResponse build_response(const MockReply& reply, const MatchContext& ctx) {
  llm::ChatResponse r;
  r.model = ctx.model;
  r.message.role = Role::assistant;
  r.message.content = expand_template(reply.text, ctx);
  for (const auto& tc : reply.tool_calls) {
    llm::ToolCall c;
    c.id = next_call_id();
    c.name = tc.name;
    if (tc.verbatim)
      c.arguments = tc.arguments;
    else
      c.arguments = expand_json(json::parse(tc.arguments, nullptr, false), ctx).dump();
    r.message.tool_calls.push_back(std::move(c));
  }
  r.finish_reason = r.message.tool_calls.empty() ? "stop" : "tool_calls";
  if (reply.omit_usage) {
    r.usage.estimated = true;  // dialects render no usage for estimated figures
  } else if (reply.usage) {
    r.usage = *reply.usage;
    r.usage.estimated = false;
  } else {
    r.usage.input_tokens = ctx.request ? llm::estimate_input_tokens(*ctx.request) : 1;
    r.usage.output_tokens = llm::estimate_output_tokens(r.message);
  }
  return r;
}

MockMatcher::MockMatcher(MockScript script) : script_(std::move(script)), used_(script_.rules.size(), 0) {}

MockMatcher::Pick MockMatcher::pick(const MatchContext& ctx) {
  Pick p;
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < script_.rules.size(); ++i) {
    const MockRule& r = script_.rules[i];
    if (r.times && used_[i] >= *r.times) continue;
    if (!rule_matches(r.match, ctx)) continue;
    ++used_[i];
    p.rule = &r;
    p.index = i;
    p.label = r.label(i);
    p.reply = r.reply ? &*r.reply : nullptr;
    p.fault = r.fault ? &*r.fault : nullptr;
    return p;
  }
  if (script_.default_reply) {
    p.label = "default_reply";
    p.reply = &*script_.default_reply;
  }
  return p;
}

void MockMatcher::reset() {
  std::lock_guard lock(mu_);
  std::fill(used_.begin(), used_.end(), 0);
}

}  // namespace kaisha::mockllm
