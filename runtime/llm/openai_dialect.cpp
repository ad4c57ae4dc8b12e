// The OpenAI chat-completions wire format, also spoken by vLLM, llama.cpp's
// server, LM Studio, OpenRouter and Ollama's /v1 endpoint.
#include <map>

#include "runtime/llm/dialect.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "runtime/llm/wire_util.hpp"

namespace kaisha::llm {
namespace {

constexpr std::string_view kOpenaiName = "openai";

Role role_from(const std::string& s, bool& ok) {
  ok = true;
  if (s == "system" || s == "developer") return Role::system;
  if (s == "user") return Role::user;
  if (s == "assistant") return Role::assistant;
  if (s == "tool" || s == "function") return Role::tool;
  ok = false;
  return Role::user;
}

json openai_tool_calls_to_json(const std::vector<ToolCall>& calls) {
  json arr = json::array();
  for (const auto& c : calls)
    arr.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  return arr;
}

std::vector<ToolCall> openai_tool_calls_from_json(const json* arr) {
  std::vector<ToolCall> out;
  if (!arr || !arr->is_array()) return out;
  for (const auto& tc : *arr) {
    ToolCall c;
    c.id = wire::str(tc, "id");
    const json* fn = wire::member(tc, "function");
    if (fn) {
      c.name = wire::str(*fn, "name");
      c.arguments = wire::args_from_wire(wire::member(*fn, "arguments"));
    }
    out.push_back(std::move(c));
  }
  return out;
}

json openai_message_to_json(const ChatMessage& m) {
  json j = {{"role", to_string(m.role)}};
  switch (m.role) {
    case Role::assistant:
      if (!m.tool_calls.empty()) {
        j["content"] = m.content.empty() ? json(nullptr) : json(m.content);
        j["tool_calls"] = openai_tool_calls_to_json(m.tool_calls);
      } else {
        j["content"] = m.content;
      }
      break;
    case Role::tool:
      j["tool_call_id"] = m.tool_call_id;
      j["content"] = m.content;
      break;
    default:
      j["content"] = m.content;
  }
  return j;
}

std::string finish_or_default(const std::string& reason, const ChatMessage& m) {
  if (!reason.empty()) return reason;
  return m.tool_calls.empty() ? "stop" : "tool_calls";
}

json openai_usage_json(const Usage& u) {
  return {{"prompt_tokens", u.input_tokens},
          {"completion_tokens", u.output_tokens},
          {"total_tokens", u.input_tokens + u.output_tokens}};
}

bool openai_read_usage(const json& j, Usage& u) {
  const json* us = wire::member(j, "usage");
  if (!us || !us->is_object()) return false;
  u.input_tokens = wire::integer(*us, "prompt_tokens");
  u.output_tokens = wire::integer(*us, "completion_tokens");
  u.estimated = false;
  return true;
}

std::string openai_error_type(int status) {
  if (status == 401) return "authentication_error";
  if (status == 403) return "permission_error";
  if (status == 404) return "not_found_error";
  if (status == 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

class OpenAiStreamDecoder : public StreamDecoder {
 public:
  void feed(std::string_view bytes) override {
    sse_.feed(bytes, [this](const SseEvent& ev) { on_event(ev); });
  }

  Result<ChatResponse> finish() override {
    if (!error_.empty()) return wire::error(kOpenaiName, error_);
    if (!done_) return wire::error(kOpenaiName, "stream ended before [DONE] (the response was cut off)");
    ChatResponse r;
    r.model = model_;
    r.message.role = Role::assistant;
    r.message.content = text_;
    for (auto& [idx, c] : calls_) r.message.tool_calls.push_back(c);
    r.finish_reason = finish_or_default(finish_, r.message);
    if (has_usage_)
      r.usage = usage_;
    else
      wire::mark_estimated_usage(r);
    return r;
  }

 private:
  void on_event(const SseEvent& ev) {
    if (!error_.empty() || done_) return;
    if (ev.data == "[DONE]") {
      done_ = true;
      return;
    }
    json j = wire::parse_text(ev.data);
    if (j.is_discarded() || !j.is_object()) {
      error_ = "stream event is not valid JSON: " + wire::excerpt(ev.data);
      return;
    }
    if (const json* e = wire::member(j, "error")) {
      std::string msg = e->is_object() ? wire::str(*e, "message") : e->dump();
      error_ = "stream carried an error: " + msg;
      return;
    }
    if (std::string m = wire::str(j, "model"); !m.empty()) model_ = m;
    if (openai_read_usage(j, usage_)) has_usage_ = true;
    const json* choices = wire::array(j, "choices");
    if (!choices || choices->empty()) return;
    const json& ch = (*choices)[0];
    if (std::string f = wire::str(ch, "finish_reason"); !f.empty()) finish_ = f;
    const json* delta = wire::member(ch, "delta");
    if (!delta) return;
    if (std::string t = wire::str(*delta, "content"); !t.empty()) {
      text_ += t;
      if (on_text) on_text(t);
    }
    if (const json* tcs = wire::array(*delta, "tool_calls")) {
      int pos = 0;
      for (const auto& tc : *tcs) {
        int idx = static_cast<int>(wire::integer(tc, "index", pos++));
        ToolCall& c = calls_[idx];
        if (std::string id = wire::str(tc, "id"); !id.empty()) c.id = id;
        if (const json* fn = wire::member(tc, "function")) {
          c.name += wire::str(*fn, "name");
          c.arguments += wire::str(*fn, "arguments");
        }
      }
    }
  }

  SseParser sse_;
  std::string model_, text_, finish_, error_;
  std::map<int, ToolCall> calls_;
  Usage usage_;
  bool has_usage_ = false;
  bool done_ = false;
};

class OpenAiDialect : public Dialect {
 public:
  std::string_view name() const override { return kOpenaiName; }

  HttpRequestSpec chat_request(const ChatRequest& req, const Endpoint& ep) const override {
    json body = {{"model", req.model}, {"stream", req.stream}};
    json msgs = json::array();
    for (const auto& m : req.messages) msgs.push_back(openai_message_to_json(m));
    body["messages"] = std::move(msgs);
    if (!req.tools.empty()) {
      json tools = json::array();
      for (const auto& t : req.tools)
        tools.push_back(
            {{"type", "function"},
             {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
      body["tools"] = std::move(tools);
    }
    if (req.temperature) body["temperature"] = *req.temperature;
    if (req.max_tokens) body["max_tokens"] = *req.max_tokens;
    if (req.seed) body["seed"] = *req.seed;
    if (req.stream) body["stream_options"] = {{"include_usage", true}};
    std::vector<std::pair<std::string, std::string>> extra;
    if (req.stream) extra.emplace_back("Accept", "text/event-stream");
    return wire::json_post(ep, "/chat/completions", body, "Authorization", "Bearer ", std::move(extra));
  }

  Result<ChatResponse> parse_chat_response(std::string_view body) const override {
    return wire::guarded<ChatResponse>(kOpenaiName, [&]() -> Result<ChatResponse> {
      auto j = wire::parse_object(kOpenaiName, body, "response");
      if (!j) return j.error();
      if (const json* e = wire::member(*j, "error"))
        return wire::error(kOpenaiName,
                           "response is an error: " + (e->is_object() ? wire::str(*e, "message") : e->dump()));
      const json* choices = wire::array(*j, "choices");
      if (!choices || choices->empty()) return wire::error(kOpenaiName, "response has no choices[0].message");
      const json* msg = wire::member((*choices)[0], "message");
      if (!msg || !msg->is_object()) return wire::error(kOpenaiName, "response has no choices[0].message");
      ChatResponse r;
      r.model = wire::str(*j, "model");
      r.message.role = Role::assistant;
      if (const json* c = wire::member(*msg, "content")) r.message.content = wire::text_of(*c);
      r.message.tool_calls = openai_tool_calls_from_json(wire::member(*msg, "tool_calls"));
      r.finish_reason = finish_or_default(wire::str((*choices)[0], "finish_reason"), r.message);
      if (!openai_read_usage(*j, r.usage)) wire::mark_estimated_usage(r);
      return r;
    });
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<OpenAiStreamDecoder>(); }

  HttpRequestSpec embed_request(const EmbedRequest& req, const Endpoint& ep) const override {
    return wire::json_post(ep, "/embeddings", json{{"model", req.model}, {"input", req.inputs}}, "Authorization",
                           "Bearer ");
  }

  Result<EmbedResponse> parse_embed_response(std::string_view body) const override {
    return wire::guarded<EmbedResponse>(kOpenaiName, [&]() -> Result<EmbedResponse> {
      auto j = wire::parse_object(kOpenaiName, body, "embeddings response");
      if (!j) return j.error();
      const json* data = wire::array(*j, "data");
      if (!data) return wire::error(kOpenaiName, "embeddings response has no data array");
      EmbedResponse r;
      r.vectors.resize(data->size());
      size_t pos = 0;
      for (const auto& d : *data) {
        size_t idx = static_cast<size_t>(wire::integer(d, "index", static_cast<int64_t>(pos)));
        ++pos;
        const json* e = wire::array(d, "embedding");
        if (!e)
          return wire::error(kOpenaiName,
                             "embeddings response data[" + std::to_string(pos - 1) + "] has no embedding array");
        if (idx >= r.vectors.size()) return wire::error(kOpenaiName, "embeddings response index out of range");
        r.vectors[idx] = e->get<std::vector<float>>();
      }
      if (const json* u = wire::member(*j, "usage"))
        r.usage.input_tokens = wire::integer(*u, "prompt_tokens");
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
        msg = e->is_object() ? wire::str(*e, "message") : (e->is_string() ? e->get<std::string>() : e->dump());
      if (msg.empty()) msg = wire::str(j, "message");
    }
    if (msg.empty()) msg = wire::excerpt(body);
    return std::string(kOpenaiName) + ": HTTP " + std::to_string(status) + ": " + msg;
  }

  Result<ChatRequest> parse_chat_request(std::string_view, std::string_view body) const override {
    return wire::guarded<ChatRequest>(kOpenaiName, [&]() -> Result<ChatRequest> {
      auto j = wire::parse_object(kOpenaiName, body, "request");
      if (!j) return j.error();
      ChatRequest r;
      r.model = wire::str(*j, "model");
      if (r.model.empty()) return wire::error(kOpenaiName, "request has no model");
      const json* msgs = wire::array(*j, "messages");
      if (!msgs) return wire::error(kOpenaiName, "request has no messages array");
      for (const auto& mj : *msgs) {
        ChatMessage m;
        bool ok;
        m.role = role_from(wire::str(mj, "role"), ok);
        if (!ok) return wire::error(kOpenaiName, "request message has unknown role \"" + wire::str(mj, "role") + "\"");
        if (const json* c = wire::member(mj, "content")) m.content = wire::text_of(*c);
        m.tool_calls = openai_tool_calls_from_json(wire::member(mj, "tool_calls"));
        m.tool_call_id = wire::str(mj, "tool_call_id");
        if (m.role == Role::tool) m.name = wire::str(mj, "name");
        r.messages.push_back(std::move(m));
      }
      wire::resolve_tool_names(r.messages);
      if (const json* tools = wire::array(*j, "tools")) {
        for (const auto& tj : *tools) {
          const json* fn = wire::member(tj, "function");
          if (!fn) return wire::error(kOpenaiName, "request tool has no function");
          ToolSpec t;
          t.name = wire::str(*fn, "name");
          t.description = wire::str(*fn, "description");
          if (const json* p = wire::member(*fn, "parameters")) t.parameters = *p;
          r.tools.push_back(std::move(t));
        }
      }
      if (const json* t = wire::member(*j, "temperature"); t && t->is_number()) r.temperature = t->get<double>();
      if (const json* t = wire::member(*j, "max_tokens"); t && t->is_number())
        r.max_tokens = wire::as_int64(*t);
      else if (const json* t2 = wire::member(*j, "max_completion_tokens"); t2 && t2->is_number())
        r.max_tokens = wire::as_int64(*t2);
      if (const json* t = wire::member(*j, "seed"); t && t->is_number()) r.seed = wire::as_int64(*t);
      if (const json* s = wire::member(*j, "stream"); s && s->is_boolean()) r.stream = s->get<bool>();
      return r;
    });
  }

  static json response_message(const ChatMessage& m) {
    json msg = {{"role", "assistant"},
                {"content", m.content.empty() && !m.tool_calls.empty() ? json(nullptr) : json(m.content)}};
    if (!m.tool_calls.empty()) msg["tool_calls"] = openai_tool_calls_to_json(m.tool_calls);
    return msg;
  }

  std::string render_chat_response(const ChatResponse& r) const override {
    json j = {{"id", "chatcmpl-mock"},
              {"object", "chat.completion"},
              {"created", 0},
              {"model", r.model},
              {"choices", json::array({{{"index", 0},
                                        {"message", response_message(r.message)},
                                        {"finish_reason", finish_or_default(r.finish_reason, r.message)}}})}};
    if (!r.usage.estimated) j["usage"] = openai_usage_json(r.usage);
    return j.dump();
  }

  std::vector<std::string> render_chat_stream(const ChatResponse& r) const override {
    std::vector<std::string> out;
    auto chunk = [&](json delta, json finish) {
      json j = {{"id", "chatcmpl-mock"},
                {"object", "chat.completion.chunk"},
                {"created", 0},
                {"model", r.model},
                {"choices",
                 json::array({{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}})}};
      out.push_back("data: " + j.dump() + "\n\n");
    };
    chunk({{"role", "assistant"}, {"content", ""}}, nullptr);
    for (const auto& p : wire::pieces(r.message.content)) chunk({{"content", p}}, nullptr);
    for (size_t i = 0; i < r.message.tool_calls.size(); ++i) {
      const auto& c = r.message.tool_calls[i];
      chunk({{"tool_calls", json::array({{{"index", i},
                                          {"id", c.id},
                                          {"type", "function"},
                                          {"function", {{"name", c.name}, {"arguments", ""}}}}})}},
            nullptr);
      for (const auto& p : wire::pieces(c.arguments, 16))
        chunk({{"tool_calls", json::array({{{"index", i}, {"function", {{"arguments", p}}}}})}}, nullptr);
    }
    chunk(json::object(), finish_or_default(r.finish_reason, r.message));
    if (!r.usage.estimated) {
      json j = {{"id", "chatcmpl-mock"}, {"object", "chat.completion.chunk"}, {"created", 0},
                {"model", r.model},      {"choices", json::array()},          {"usage", openai_usage_json(r.usage)}};
      out.push_back("data: " + j.dump() + "\n\n");
    }
    out.push_back("data: [DONE]\n\n");
    return out;
  }

  std::string stream_content_type() const override { return "text/event-stream"; }

  Result<EmbedRequest> parse_embed_request(std::string_view, std::string_view body) const override {
    return wire::guarded<EmbedRequest>(kOpenaiName, [&]() -> Result<EmbedRequest> {
      auto j = wire::parse_object(kOpenaiName, body, "embeddings request");
      if (!j) return j.error();
      EmbedRequest r;
      r.model = wire::str(*j, "model");
      const json* in = wire::member(*j, "input");
      if (!in) return wire::error(kOpenaiName, "embeddings request has no input");
      if (in->is_string())
        r.inputs.push_back(in->get<std::string>());
      else if (in->is_array()) {
        for (const auto& s : *in) {
          if (!s.is_string())
            return wire::error(kOpenaiName,
                               "embeddings request input must be strings (token arrays are not supported)");
          r.inputs.push_back(s.get<std::string>());
        }
      } else
        return wire::error(kOpenaiName, "embeddings request input must be a string or an array of strings");
      return r;
    });
  }

  std::string render_embed_response(const EmbedResponse& r) const override {
    json data = json::array();
    for (size_t i = 0; i < r.vectors.size(); ++i)
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", r.vectors[i]}});
    return json{{"object", "list"},
                {"data", std::move(data)},
                {"model", "mock"},
                {"usage", {{"prompt_tokens", r.usage.input_tokens}, {"total_tokens", r.usage.input_tokens}}}}
        .dump();
  }

  std::string render_error(int status, std::string_view message) const override {
    return json{{"error", {{"message", message}, {"type", openai_error_type(status)}, {"code", nullptr}}}}.dump();
  }
};

}  // namespace

const Dialect& openai_dialect() {
  static const OpenAiDialect d;
  return d;
}

}  // namespace kaisha::llm
