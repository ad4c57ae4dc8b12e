// Ollama's native API (/api/chat, /api/embed). Tool-call arguments travel as
// JSON objects; Ollama has no tool-call ids of its own, so ids are sent along
// (Ollama ignores unknown fields) and synthesized when a response lacks them.
#include <atomic>

#include "runtime/llm/dialect.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "runtime/llm/wire_util.hpp"

namespace kaisha::llm {
namespace {

constexpr std::string_view kOllamaName = "ollama";

std::string ollama_synthesize_id() {
  static std::atomic<uint64_t> next{1};
  return "call_ollama_" + std::to_string(next++);
}

json ollama_tool_calls_to_json(const std::vector<ToolCall>& calls) {
  json arr = json::array();
  for (const auto& c : calls) {
    json tc = {{"function", {{"name", c.name}, {"arguments", wire::args_to_wire(c.arguments)}}}};
    if (!c.id.empty()) tc["id"] = c.id;
    arr.push_back(std::move(tc));
  }
  return arr;
}

std::vector<ToolCall> ollama_tool_calls_from_json(const json* arr, bool synthesize) {
  std::vector<ToolCall> out;
  if (!arr || !arr->is_array()) return out;
  for (const auto& tc : *arr) {
    ToolCall c;
    c.id = wire::str(tc, "id");
    if (c.id.empty() && synthesize) c.id = ollama_synthesize_id();
    if (const json* fn = wire::member(tc, "function")) {
      c.name = wire::str(*fn, "name");
      c.arguments = wire::args_from_wire(wire::member(*fn, "arguments"));
    }
    out.push_back(std::move(c));
  }
  return out;
}

json ollama_message_to_json(const ChatMessage& m) {
  json j = {{"role", to_string(m.role)}, {"content", m.content}};
  if (!m.tool_calls.empty()) j["tool_calls"] = ollama_tool_calls_to_json(m.tool_calls);
  if (m.role == Role::tool) {
    if (!m.name.empty()) j["tool_name"] = m.name;
    if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  }
  return j;
}

std::string ollama_finish_from(const std::string& done_reason, const ChatMessage& m) {
  if (!m.tool_calls.empty()) return "tool_calls";
  return done_reason.empty() ? "stop" : done_reason;
}

bool ollama_read_usage(const json& j, Usage& u) {
  if (!wire::member(j, "prompt_eval_count") && !wire::member(j, "eval_count")) return false;
  u.input_tokens = wire::integer(j, "prompt_eval_count");
  u.output_tokens = wire::integer(j, "eval_count");
  u.estimated = false;
  return true;
}

json final_fields(const ChatResponse& r) {
  json j = {{"done", true}, {"done_reason", r.finish_reason == "length" ? "length" : "stop"}};
  if (!r.usage.estimated) {
    j["prompt_eval_count"] = r.usage.input_tokens;
    j["eval_count"] = r.usage.output_tokens;
  }
  return j;
}

class OllamaStreamDecoder : public StreamDecoder {
 public:
  void feed(std::string_view bytes) override {
    lines_.feed(bytes, [this](std::string_view line) { on_line(line); });
  }

  Result<ChatResponse> finish() override {
    if (!lines_.pending().empty()) {
      std::string last = lines_.pending();
      on_line(last);
    }
    if (!error_.empty()) return wire::error(kOllamaName, error_);
    if (!done_)
      return wire::error(kOllamaName,
                         "stream ended before the final line with \"done\": true (the response was cut off)");
    ChatResponse r;
    r.model = model_;
    r.message.role = Role::assistant;
    r.message.content = text_;
    r.message.tool_calls = calls_;
    r.finish_reason = ollama_finish_from(done_reason_, r.message);
    if (has_usage_)
      r.usage = usage_;
    else
      wire::mark_estimated_usage(r);
    return r;
  }

 private:
  void on_line(std::string_view line) {
    if (!error_.empty() || done_) return;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
    json j = wire::parse_text(line);
    if (j.is_discarded() || !j.is_object()) {
      error_ = "stream line is not valid JSON: " + wire::excerpt(line);
      return;
    }
    if (const json* e = wire::member(j, "error")) {
      error_ = "stream carried an error: " + (e->is_string() ? e->get<std::string>() : e->dump());
      return;
    }
    if (std::string m = wire::str(j, "model"); !m.empty()) model_ = m;
    if (const json* msg = wire::member(j, "message")) {
      if (std::string t = wire::str(*msg, "content"); !t.empty()) {
        text_ += t;
        if (on_text) on_text(t);
      }
      for (auto& c : ollama_tool_calls_from_json(wire::member(*msg, "tool_calls"), true))
        calls_.push_back(std::move(c));
    }
    if (const json* d = wire::member(j, "done"); d && d->is_boolean() && d->get<bool>()) {
      done_ = true;
      done_reason_ = wire::str(j, "done_reason");
      has_usage_ = ollama_read_usage(j, usage_);
    }
  }

  LineSplitter lines_;
  std::string model_, text_, done_reason_, error_;
  std::vector<ToolCall> calls_;
  Usage usage_;
  bool has_usage_ = false;
  bool done_ = false;
};

class OllamaDialect : public Dialect {
 public:
  std::string_view name() const override { return kOllamaName; }

  HttpRequestSpec chat_request(const ChatRequest& req, const Endpoint& ep) const override {
    json body = {{"model", req.model}, {"stream", req.stream}};
    json msgs = json::array();
    for (const auto& m : req.messages) msgs.push_back(ollama_message_to_json(m));
    body["messages"] = std::move(msgs);
    if (!req.tools.empty()) {
      json tools = json::array();
      for (const auto& t : req.tools)
        tools.push_back(
            {{"type", "function"},
             {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
      body["tools"] = std::move(tools);
    }
    json options = json::object();
    if (req.temperature) options["temperature"] = *req.temperature;
    if (req.max_tokens) options["num_predict"] = *req.max_tokens;
    if (req.seed) options["seed"] = *req.seed;
    if (!options.empty()) body["options"] = std::move(options);
    return wire::json_post(ep, "/api/chat", body, "Authorization", "Bearer ");
  }

  Result<ChatResponse> parse_chat_response(std::string_view body) const override {
    return wire::guarded<ChatResponse>(kOllamaName, [&]() -> Result<ChatResponse> {
      auto j = wire::parse_object(kOllamaName, body, "response");
      if (!j) return j.error();
      if (const json* e = wire::member(*j, "error"))
        return wire::error(kOllamaName,
                           "response is an error: " + (e->is_string() ? e->get<std::string>() : e->dump()));
      const json* msg = wire::member(*j, "message");
      if (!msg || !msg->is_object()) return wire::error(kOllamaName, "response has no message");
      ChatResponse r;
      r.model = wire::str(*j, "model");
      r.message.role = Role::assistant;
      r.message.content = wire::str(*msg, "content");
      r.message.tool_calls = ollama_tool_calls_from_json(wire::member(*msg, "tool_calls"), true);
      r.finish_reason = ollama_finish_from(wire::str(*j, "done_reason"), r.message);
      if (!ollama_read_usage(*j, r.usage)) wire::mark_estimated_usage(r);
      return r;
    });
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<OllamaStreamDecoder>(); }

  HttpRequestSpec embed_request(const EmbedRequest& req, const Endpoint& ep) const override {
    return wire::json_post(ep, "/api/embed", json{{"model", req.model}, {"input", req.inputs}}, "Authorization",
                           "Bearer ");
  }

  Result<EmbedResponse> parse_embed_response(std::string_view body) const override {
    return wire::guarded<EmbedResponse>(kOllamaName, [&]() -> Result<EmbedResponse> {
      auto j = wire::parse_object(kOllamaName, body, "embeddings response");
      if (!j) return j.error();
      const json* e = wire::array(*j, "embeddings");
      if (!e) return wire::error(kOllamaName, "embeddings response has no embeddings array");
      EmbedResponse r;
      for (const auto& v : *e) {
        if (!v.is_array()) return wire::error(kOllamaName, "embeddings response holds a non-array vector");
        r.vectors.push_back(v.get<std::vector<float>>());
      }
      if (wire::member(*j, "prompt_eval_count"))
        r.usage.input_tokens = wire::integer(*j, "prompt_eval_count");
      else
        r.usage.estimated = true;
      return r;
    });
  }

  std::string describe_error(int status, std::string_view body) const override {
    std::string msg;
    json j = wire::parse_text(body);
    if (!j.is_discarded()) {
      if (const json* e = wire::member(j, "error"))
        msg = e->is_string() ? e->get<std::string>() : (e->is_object() ? wire::str(*e, "message") : e->dump());
    }
    if (msg.empty()) msg = wire::excerpt(body);
    return std::string(kOllamaName) + ": HTTP " + std::to_string(status) + ": " + msg;
  }

  Result<ChatRequest> parse_chat_request(std::string_view, std::string_view body) const override {
    return wire::guarded<ChatRequest>(kOllamaName, [&]() -> Result<ChatRequest> {
      auto j = wire::parse_object(kOllamaName, body, "request");
      if (!j) return j.error();
      ChatRequest r;
      r.model = wire::str(*j, "model");
      if (r.model.empty()) return wire::error(kOllamaName, "request has no model");
      const json* msgs = wire::array(*j, "messages");
      if (!msgs) return wire::error(kOllamaName, "request has no messages array");
      for (const auto& mj : *msgs) {
        ChatMessage m;
        std::string role = wire::str(mj, "role");
        if (role == "system")
          m.role = Role::system;
        else if (role == "user")
          m.role = Role::user;
        else if (role == "assistant")
          m.role = Role::assistant;
        else if (role == "tool")
          m.role = Role::tool;
        else
          return wire::error(kOllamaName, "request message has unknown role \"" + role + "\"");
        m.content = wire::str(mj, "content");
        m.tool_calls = ollama_tool_calls_from_json(wire::member(mj, "tool_calls"), false);
        m.tool_call_id = wire::str(mj, "tool_call_id");
        m.name = wire::str(mj, "tool_name");
        if (m.name.empty() && m.role == Role::tool) m.name = wire::str(mj, "name");
        r.messages.push_back(std::move(m));
      }
      wire::resolve_tool_names(r.messages);
      if (const json* tools = wire::array(*j, "tools")) {
        for (const auto& tj : *tools) {
          const json* fn = wire::member(tj, "function");
          if (!fn) return wire::error(kOllamaName, "request tool has no function");
          ToolSpec t;
          t.name = wire::str(*fn, "name");
          t.description = wire::str(*fn, "description");
          if (const json* p = wire::member(*fn, "parameters")) t.parameters = *p;
          r.tools.push_back(std::move(t));
        }
      }
      if (const json* o = wire::member(*j, "options")) {
        if (const json* t = wire::member(*o, "temperature"); t && t->is_number()) r.temperature = t->get<double>();
        if (const json* t = wire::member(*o, "num_predict"); t && t->is_number()) r.max_tokens = wire::as_int64(*t);
        if (const json* t = wire::member(*o, "seed"); t && t->is_number()) r.seed = wire::as_int64(*t);
      }
      // Ollama streams unless told not to.
      const json* s = wire::member(*j, "stream");
      r.stream = !(s && s->is_boolean() && !s->get<bool>());
      return r;
    });
  }

  std::string render_chat_response(const ChatResponse& r) const override {
    json msg = {{"role", "assistant"}, {"content", r.message.content}};
    if (!r.message.tool_calls.empty()) msg["tool_calls"] = ollama_tool_calls_to_json(r.message.tool_calls);
    json j = {{"model", r.model}, {"created_at", "1970-01-01T00:00:00Z"}, {"message", std::move(msg)}};
    j.update(final_fields(r));
    return j.dump();
  }

  std::vector<std::string> render_chat_stream(const ChatResponse& r) const override {
    std::vector<std::string> out;
    auto line = [&](json msg, bool last) {
      json j = {{"model", r.model}, {"created_at", "1970-01-01T00:00:00Z"}, {"message", std::move(msg)}};
      if (last)
        j.update(final_fields(r));
      else
        j["done"] = false;
      out.push_back(j.dump() + "\n");
    };
    for (const auto& p : wire::pieces(r.message.content)) line({{"role", "assistant"}, {"content", p}}, false);
    if (!r.message.tool_calls.empty())
      line({{"role", "assistant"}, {"content", ""}, {"tool_calls", ollama_tool_calls_to_json(r.message.tool_calls)}},
           false);
    line({{"role", "assistant"}, {"content", ""}}, true);
    return out;
  }

  std::string stream_content_type() const override { return "application/x-ndjson"; }

  Result<EmbedRequest> parse_embed_request(std::string_view, std::string_view body) const override {
    return wire::guarded<EmbedRequest>(kOllamaName, [&]() -> Result<EmbedRequest> {
      auto j = wire::parse_object(kOllamaName, body, "embeddings request");
      if (!j) return j.error();
      EmbedRequest r;
      r.model = wire::str(*j, "model");
      const json* in = wire::member(*j, "input");
      if (!in) in = wire::member(*j, "prompt");
      if (!in) return wire::error(kOllamaName, "embeddings request has no input");
      if (in->is_string())
        r.inputs.push_back(in->get<std::string>());
      else if (in->is_array()) {
        for (const auto& s : *in) {
          if (!s.is_string()) return wire::error(kOllamaName, "embeddings request input must be strings");
          r.inputs.push_back(s.get<std::string>());
        }
      } else
        return wire::error(kOllamaName, "embeddings request input must be a string or an array of strings");
      return r;
    });
  }

  std::string render_embed_response(const EmbedResponse& r) const override {
    return json{{"model", "mock"}, {"embeddings", r.vectors}, {"prompt_eval_count", r.usage.input_tokens}}.dump();
  }

  std::string render_error(int, std::string_view message) const override { return json{{"error", message}}.dump(); }
};

}  // namespace

const Dialect& ollama_dialect() {
  static const OllamaDialect d;
  return d;
}

}  // namespace kaisha::llm
