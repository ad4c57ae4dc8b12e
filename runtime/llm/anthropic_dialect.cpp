// Anthropic's Messages API (/v1/messages). Tool results travel as
// tool_result blocks inside a user message; there is no embeddings endpoint.
#include <string>
#include <vector>

#include "runtime/llm/dialect.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "runtime/llm/wire_util.hpp"

namespace kaisha::llm {
namespace {

constexpr std::string_view kAnthropicName = "anthropic";
constexpr int64_t kDefaultMaxTokens = 1024;  // the API requires max_tokens

std::string anthropic_finish_from(const std::string& stop, const ChatMessage& m) {
  if (stop == "tool_use") return "tool_calls";
  if (stop == "max_tokens") return "length";
  if (stop.empty() || stop == "end_turn" || stop == "stop_sequence")
    return m.tool_calls.empty() ? "stop" : "tool_calls";
  return stop;
}

std::string anthropic_finish_to(const std::string& reason) {
  if (reason == "tool_calls") return "tool_use";
  if (reason == "length") return "max_tokens";
  if (reason.empty() || reason == "stop") return "end_turn";
  return reason;
}

bool anthropic_read_usage(const json* u, Usage& out, bool output_only) {
  if (!u || !u->is_object()) return false;
  if (!output_only)
    out.input_tokens = wire::integer(*u, "input_tokens") + wire::integer(*u, "cache_creation_input_tokens") +
                       wire::integer(*u, "cache_read_input_tokens");
  if (wire::member(*u, "output_tokens")) out.output_tokens = wire::integer(*u, "output_tokens");
  out.estimated = false;
  return true;
}

json tool_use_block(const ToolCall& c) {
  return {{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", wire::args_to_wire(c.arguments)}};
}

std::string anthropic_error_type(int status) {
  if (status == 400) return "invalid_request_error";
  if (status == 401) return "authentication_error";
  if (status == 403) return "permission_error";
  if (status == 404) return "not_found_error";
  if (status == 413) return "request_too_large";
  if (status == 429) return "rate_limit_error";
  if (status == 529) return "overloaded_error";
  return "api_error";
}

class AnthropicStreamDecoder : public StreamDecoder {
 public:
  void feed(std::string_view bytes) override {
    sse_.feed(bytes, [this](const SseEvent& ev) { on_event(ev); });
  }

  Result<ChatResponse> finish() override {
    if (!error_.empty()) return wire::error(kAnthropicName, error_);
    if (!done_) return wire::error(kAnthropicName, "stream ended before message_stop (the response was cut off)");
    ChatResponse r;
    r.model = model_;
    r.message.role = Role::assistant;
    for (auto& b : blocks_) {
      if (b.kind == Block::kTool) {
        if (b.call.arguments.empty()) b.call.arguments = b.initial_input.empty() ? "{}" : b.initial_input;
        r.message.tool_calls.push_back(b.call);
      } else if (b.kind == Block::kText) {
        r.message.content += b.text;
      }
    }
    r.finish_reason = anthropic_finish_from(stop_, r.message);
    if (has_usage_)
      r.usage = usage_;
    else
      wire::mark_estimated_usage(r);
    return r;
  }

 private:
  // One content block. Kinds other than text and tool_use (thinking, server
  // tools' blocks) are kept in place, so indices stay right, and ignored.
  struct Block {
    enum Kind { kText, kTool, kOther } kind = kOther;
    std::string text;
    ToolCall call;
    std::string initial_input;
  };

  // Anthropic numbers content blocks 0, 1, 2… in the order they start (a
  // block's index is its place in the final content array) and streams them
  // one after the other: start, deltas, stop. An event that breaks this order
  // is a decode error, never a guess: a guess could merge two blocks or turn
  // a text block whose text was already passed to on_text into a tool call,
  // losing that text from the answer.
  bool read_index(const json& j, const std::string& type, int64_t& idx) {
    const json* i = wire::member(j, "index");
    if (!i || !i->is_number_integer()) {
      error_ = type + " has no integer index";
      return false;
    }
    idx = i->get<int64_t>();
    return true;
  }

  // The open block a content_block_delta or content_block_stop names, or
  // nullptr (and error_ set) when it names another one.
  Block* open_block(const json& j, const std::string& type) {
    int64_t idx = 0;
    if (!read_index(j, type, idx)) return nullptr;
    if (open_ < 0) {
      error_ = type + " for block " + std::to_string(idx) + ", but no content block is open";
      return nullptr;
    }
    if (idx != open_) {
      error_ = type + " for block " + std::to_string(idx) + ", but the open block is " + std::to_string(open_);
      return nullptr;
    }
    return &blocks_[static_cast<size_t>(idx)];
  }

  void start_block(const json& j) {
    int64_t idx = 0;
    if (!read_index(j, "content_block_start", idx)) return;
    if (idx != static_cast<int64_t>(blocks_.size())) {
      error_ = "content_block_start has index " + std::to_string(idx) + " but " + std::to_string(blocks_.size()) +
               " blocks have started (blocks are numbered from 0, each starting once, in order)";
      return;
    }
    const json* cb = wire::member(j, "content_block");
    if (!cb || !cb->is_object()) {
      error_ = "content_block_start for block " + std::to_string(idx) + " has no content_block object";
      return;
    }
    Block& b = blocks_.emplace_back();
    open_ = idx;
    std::string kind = wire::str(*cb, "type");
    if (kind == "tool_use") {
      b.kind = Block::kTool;
      b.call.id = wire::str(*cb, "id");
      b.call.name = wire::str(*cb, "name");
      const json* in = wire::member(*cb, "input");
      if (in && !(in->is_object() && in->empty())) b.initial_input = wire::args_from_wire(in);
    } else if (kind == "text") {
      b.kind = Block::kText;
      b.text = wire::str(*cb, "text");
      if (!b.text.empty() && on_text) on_text(b.text);
    }
  }

  void block_delta(const json& j) {
    Block* b = open_block(j, "content_block_delta");
    if (!b) return;
    const json* d = wire::member(j, "delta");
    if (!d) return;
    std::string dt = wire::str(*d, "type");
    if (b->kind == Block::kOther) return;
    bool text_delta = dt == "text_delta", json_delta = dt == "input_json_delta";
    if ((text_delta && b->kind != Block::kText) || (json_delta && b->kind != Block::kTool)) {
      error_ = "content_block_delta of type " + dt + " for block " + std::to_string(open_) + ", which is a " +
               (b->kind == Block::kText ? "text" : "tool_use") + " block";
      return;
    }
    if (text_delta) {
      std::string t = wire::str(*d, "text");
      b->text += t;
      if (!t.empty() && on_text) on_text(t);
    } else if (json_delta) {
      b->call.arguments += wire::str(*d, "partial_json");
    }
  }

  void on_event(const SseEvent& ev) {
    if (!error_.empty() || done_) return;
    json j = wire::parse_text(ev.data);
    if (j.is_discarded() || !j.is_object()) {
      error_ = "stream event is not valid JSON: " + wire::excerpt(ev.data);
      return;
    }
    std::string type = wire::str(j, "type");
    if (type.empty()) type = ev.event;
    if (type == "error") {
      const json* e = wire::member(j, "error");
      error_ = "stream carried an error: " + (e ? (e->is_object() ? wire::str(*e, "message") : e->dump()) : ev.data);
    } else if (type == "message_start") {
      if (const json* m = wire::member(j, "message")) {
        model_ = wire::str(*m, "model");
        if (anthropic_read_usage(wire::member(*m, "usage"), usage_, false)) has_usage_ = true;
      }
    } else if (type == "content_block_start") {
      start_block(j);
    } else if (type == "content_block_delta") {
      block_delta(j);
    } else if (type == "content_block_stop") {
      if (open_block(j, type)) open_ = -1;
    } else if (type == "message_delta") {
      if (const json* d = wire::member(j, "delta")) stop_ = wire::str(*d, "stop_reason");
      if (anthropic_read_usage(wire::member(j, "usage"), usage_, true)) has_usage_ = true;
    } else if (type == "message_stop") {
      done_ = true;
    }
  }

  SseParser sse_;
  std::vector<Block> blocks_;
  int64_t open_ = -1;  // the block deltas go to; -1 before the first start and after a stop
  std::string model_, stop_, error_;
  Usage usage_;
  bool has_usage_ = false;
  bool done_ = false;
};

class AnthropicDialect : public Dialect {
 public:
  std::string_view name() const override { return kAnthropicName; }

  HttpRequestSpec chat_request(const ChatRequest& req, const Endpoint& ep) const override {
    json body = {{"model", req.model}, {"max_tokens", req.max_tokens.value_or(kDefaultMaxTokens)}};
    std::string system;
    json msgs = json::array();
    const auto& ms = req.messages;
    for (size_t i = 0; i < ms.size(); ++i) {
      const auto& m = ms[i];
      if (m.role == Role::system) {
        if (!system.empty()) system += "\n\n";
        system += m.content;
      } else if (m.role == Role::user) {
        msgs.push_back({{"role", "user"}, {"content", m.content}});
      } else if (m.role == Role::assistant) {
        if (m.tool_calls.empty()) {
          msgs.push_back({{"role", "assistant"}, {"content", m.content}});
        } else {
          json blocks = json::array();
          if (!m.content.empty()) blocks.push_back({{"type", "text"}, {"text", m.content}});
          for (const auto& c : m.tool_calls) blocks.push_back(tool_use_block(c));
          msgs.push_back({{"role", "assistant"}, {"content", std::move(blocks)}});
        }
      } else {  // consecutive tool results: one user message of tool_result blocks
        json blocks = json::array();
        for (; i < ms.size() && ms[i].role == Role::tool; ++i)
          blocks.push_back({{"type", "tool_result"}, {"tool_use_id", ms[i].tool_call_id}, {"content", ms[i].content}});
        --i;
        msgs.push_back({{"role", "user"}, {"content", std::move(blocks)}});
      }
    }
    if (!system.empty()) body["system"] = system;
    body["messages"] = std::move(msgs);
    if (!req.tools.empty()) {
      json tools = json::array();
      for (const auto& t : req.tools) {
        json schema = t.parameters.empty() ? json{{"type", "object"}, {"properties", json::object()}} : t.parameters;
        tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", std::move(schema)}});
      }
      body["tools"] = std::move(tools);
    }
    if (req.temperature) body["temperature"] = *req.temperature;
    // The Messages API has no sampling seed: a request's seed is not sent.
    if (req.stream) body["stream"] = true;
    std::vector<std::pair<std::string, std::string>> extra = {{"anthropic-version", "2023-06-01"}};
    if (req.stream) extra.emplace_back("Accept", "text/event-stream");
    return wire::json_post(ep, "/v1/messages", body, "x-api-key", "", std::move(extra));
  }

  Result<ChatResponse> parse_chat_response(std::string_view body) const override {
    return wire::guarded<ChatResponse>(kAnthropicName, [&]() -> Result<ChatResponse> {
      auto j = wire::parse_object(kAnthropicName, body, "response");
      if (!j) return j.error();
      if (wire::str(*j, "type") == "error" || wire::member(*j, "error")) {
        const json* e = wire::member(*j, "error");
        return wire::error(kAnthropicName,
                           "response is an error: " + (e && e->is_object() ? wire::str(*e, "message") : j->dump()));
      }
      const json* content = wire::array(*j, "content");
      if (!content) return wire::error(kAnthropicName, "response has no content array");
      ChatResponse r;
      r.model = wire::str(*j, "model");
      r.message.role = Role::assistant;
      for (const auto& b : *content) {
        std::string type = wire::str(b, "type");
        if (type == "text")
          r.message.content += wire::str(b, "text");
        else if (type == "tool_use")
          r.message.tool_calls.push_back(
              {wire::str(b, "id"), wire::str(b, "name"), wire::args_from_wire(wire::member(b, "input"))});
      }
      r.finish_reason = anthropic_finish_from(wire::str(*j, "stop_reason"), r.message);
      if (!anthropic_read_usage(wire::member(*j, "usage"), r.usage, false)) wire::mark_estimated_usage(r);
      return r;
    });
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<AnthropicStreamDecoder>(); }

  bool supports_embeddings() const override { return false; }

  HttpRequestSpec embed_request(const EmbedRequest&, const Endpoint&) const override {
    HttpRequestSpec spec;
    spec.method.clear();  // nothing to send: see supports_embeddings()
    return spec;
  }

  Result<EmbedResponse> parse_embed_response(std::string_view) const override {
    return wire::error(kAnthropicName,
                       "Anthropic has no embeddings API; configure an embedding model from another provider");
  }

  std::string describe_error(int status, std::string_view body) const override {
    std::string msg;
    json j = wire::parse_text(body);
    if (!j.is_discarded()) {
      if (const json* e = wire::member(j, "error")) {
        msg = e->is_object() ? wire::str(*e, "message") : e->dump();
        if (e->is_object() && !wire::str(*e, "type").empty()) msg += " (" + wire::str(*e, "type") + ")";
      }
    }
    if (msg.empty()) msg = wire::excerpt(body);
    return std::string(kAnthropicName) + ": HTTP " + std::to_string(status) + ": " + msg;
  }

  Result<ChatRequest> parse_chat_request(std::string_view, std::string_view body) const override {
    return wire::guarded<ChatRequest>(kAnthropicName, [&]() -> Result<ChatRequest> {
      auto j = wire::parse_object(kAnthropicName, body, "request");
      if (!j) return j.error();
      ChatRequest r;
      r.model = wire::str(*j, "model");
      if (r.model.empty()) return wire::error(kAnthropicName, "request has no model");
      if (const json* s = wire::member(*j, "system")) {
        ChatMessage m;
        m.role = Role::system;
        m.content = wire::text_of(*s);
        r.messages.push_back(std::move(m));
      }
      const json* msgs = wire::array(*j, "messages");
      if (!msgs) return wire::error(kAnthropicName, "request has no messages array");
      for (const auto& mj : *msgs) {
        std::string role = wire::str(mj, "role");
        if (role != "user" && role != "assistant")
          return wire::error(kAnthropicName, "request message has unknown role \"" + role + "\"");
        const json* c = wire::member(mj, "content");
        if (!c) return wire::error(kAnthropicName, "request message has no content");
        ChatMessage m;
        m.role = role == "user" ? Role::user : Role::assistant;
        if (c->is_string()) {
          m.content = c->get<std::string>();
          r.messages.push_back(std::move(m));
          continue;
        }
        bool has_text = false;
        for (const auto& b : *c) {
          std::string type = wire::str(b, "type");
          if (type == "text") {
            m.content += wire::str(b, "text");
            has_text = true;
          } else if (type == "tool_use") {
            m.tool_calls.push_back(
                {wire::str(b, "id"), wire::str(b, "name"), wire::args_from_wire(wire::member(b, "input"))});
          } else if (type == "tool_result") {
            ChatMessage tm;
            tm.role = Role::tool;
            tm.tool_call_id = wire::str(b, "tool_use_id");
            if (const json* tc = wire::member(b, "content")) tm.content = wire::text_of(*tc);
            r.messages.push_back(std::move(tm));
          }
        }
        if (m.role == Role::assistant || has_text) r.messages.push_back(std::move(m));
      }
      wire::resolve_tool_names(r.messages);
      if (const json* tools = wire::array(*j, "tools")) {
        for (const auto& tj : *tools) {
          ToolSpec t;
          t.name = wire::str(tj, "name");
          t.description = wire::str(tj, "description");
          if (const json* p = wire::member(tj, "input_schema")) t.parameters = *p;
          r.tools.push_back(std::move(t));
        }
      }
      if (const json* t = wire::member(*j, "temperature"); t && t->is_number()) r.temperature = t->get<double>();
      if (const json* t = wire::member(*j, "max_tokens"); t && t->is_number()) r.max_tokens = wire::as_int64(*t);
      if (const json* s = wire::member(*j, "stream"); s && s->is_boolean()) r.stream = s->get<bool>();
      return r;
    });
  }

  std::string render_chat_response(const ChatResponse& r) const override {
    json content = json::array();
    if (!r.message.content.empty() || r.message.tool_calls.empty())
      content.push_back({{"type", "text"}, {"text", r.message.content}});
    for (const auto& c : r.message.tool_calls) content.push_back(tool_use_block(c));
    json j = {{"id", "msg_mock"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", r.model},
              {"content", std::move(content)},
              {"stop_reason", anthropic_finish_to(r.finish_reason)},
              {"stop_sequence", nullptr}};
    if (!r.usage.estimated)
      j["usage"] = {{"input_tokens", r.usage.input_tokens}, {"output_tokens", r.usage.output_tokens}};
    return j.dump();
  }

  std::vector<std::string> render_chat_stream(const ChatResponse& r) const override {
    std::vector<std::string> out;
    auto event = [&](const char* name, json data) {
      out.push_back(std::string("event: ") + name + "\ndata: " + data.dump() + "\n\n");
    };
    json start = {{"id", "msg_mock"},         {"type", "message"},      {"role", "assistant"},     {"model", r.model},
                  {"content", json::array()}, {"stop_reason", nullptr}, {"stop_sequence", nullptr}};
    if (!r.usage.estimated) start["usage"] = {{"input_tokens", r.usage.input_tokens}, {"output_tokens", 0}};
    event("message_start", {{"type", "message_start"}, {"message", std::move(start)}});
    int idx = 0;
    if (!r.message.content.empty()) {
      event("content_block_start",
            {{"type", "content_block_start"}, {"index", idx}, {"content_block", {{"type", "text"}, {"text", ""}}}});
      for (const auto& p : wire::pieces(r.message.content))
        event("content_block_delta",
              {{"type", "content_block_delta"}, {"index", idx}, {"delta", {{"type", "text_delta"}, {"text", p}}}});
      event("content_block_stop", {{"type", "content_block_stop"}, {"index", idx}});
      ++idx;
    }
    for (const auto& c : r.message.tool_calls) {
      event("content_block_start",
            {{"type", "content_block_start"},
             {"index", idx},
             {"content_block", {{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", json::object()}}}});
      for (const auto& p : wire::pieces(c.arguments, 16))
        event("content_block_delta", {{"type", "content_block_delta"},
                                      {"index", idx},
                                      {"delta", {{"type", "input_json_delta"}, {"partial_json", p}}}});
      event("content_block_stop", {{"type", "content_block_stop"}, {"index", idx}});
      ++idx;
    }
    json md = {{"type", "message_delta"},
               {"delta", {{"stop_reason", anthropic_finish_to(r.finish_reason)}, {"stop_sequence", nullptr}}}};
    if (!r.usage.estimated) md["usage"] = {{"output_tokens", r.usage.output_tokens}};
    event("message_delta", std::move(md));
    event("message_stop", {{"type", "message_stop"}});
    return out;
  }

  std::string stream_content_type() const override { return "text/event-stream"; }

  Result<EmbedRequest> parse_embed_request(std::string_view, std::string_view) const override {
    return wire::error(kAnthropicName, "Anthropic has no embeddings API");
  }

  std::string render_embed_response(const EmbedResponse&) const override {
    return render_error(404, "Anthropic has no embeddings API");
  }

  std::string render_error(int status, std::string_view message) const override {
    return json{{"type", "error"}, {"error", {{"type", anthropic_error_type(status)}, {"message", message}}}}.dump();
  }
};

}  // namespace

const Dialect& anthropic_dialect() {
  static const AnthropicDialect d;
  return d;
}

}  // namespace kaisha::llm
