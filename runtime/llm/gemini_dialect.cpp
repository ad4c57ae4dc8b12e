// Google's Gemini API (generativelanguage.googleapis.com v1beta). Gemini has
// no tool-call ids on the request side: ids are synthesized when reading and
// tool results are matched to calls by function name.
#include <atomic>
#include <cctype>

#include "runtime/llm/dialect.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "runtime/llm/wire_util.hpp"
#include "runtime/core/ascii_case.hpp"

namespace kaisha::llm {
namespace {

constexpr std::string_view kGeminiName = "gemini";

std::string gemini_synthesize_id() {
  static std::atomic<uint64_t> next{1};
  return "call_gemini_" + std::to_string(next++);
}

std::string model_path(std::string model) {
  if (model.rfind("models/", 0) == 0) model.erase(0, 7);
  return "/models/" + model;
}

std::string gemini_finish_from(const std::string& reason, const ChatMessage& m) {
  if (!m.tool_calls.empty()) return "tool_calls";
  if (reason.empty() || reason == "STOP") return "stop";
  if (reason == "MAX_TOKENS") return "length";
  return ascii_lower(reason);
}

std::string gemini_finish_to(const std::string& reason) {
  if (reason.empty() || reason == "stop" || reason == "tool_calls") return "STOP";
  if (reason == "length") return "MAX_TOKENS";
  std::string out = reason;
  for (auto& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

bool gemini_read_usage(const json& j, Usage& u) {
  const json* um = wire::member(j, "usageMetadata");
  if (!um || !um->is_object()) return false;
  u.input_tokens = wire::integer(*um, "promptTokenCount");
  u.output_tokens = wire::integer(*um, "candidatesTokenCount") + wire::integer(*um, "thoughtsTokenCount");
  u.estimated = false;
  return true;
}

json gemini_usage_json(const Usage& u) {
  return {{"promptTokenCount", u.input_tokens},
          {"candidatesTokenCount", u.output_tokens},
          {"totalTokenCount", u.input_tokens + u.output_tokens}};
}

// Appends the text and function calls of candidate `parts` to `m`.
void read_parts(const json* parts, ChatMessage& m, std::string* text_delta) {
  if (!parts || !parts->is_array()) return;
  for (const auto& p : *parts) {
    if (const json* t = wire::member(p, "text"); t && t->is_string()) {
      if (wire::member(p, "thought") && p["thought"].is_boolean() && p["thought"].get<bool>()) continue;
      m.content += t->get<std::string>();
      if (text_delta) *text_delta += t->get<std::string>();
    }
    if (const json* fc = wire::member(p, "functionCall")) {
      ToolCall c;
      c.id = wire::str(*fc, "id");
      if (c.id.empty()) c.id = gemini_synthesize_id();
      c.name = wire::str(*fc, "name");
      c.arguments = wire::args_from_wire(wire::member(*fc, "args"));
      m.tool_calls.push_back(std::move(c));
    }
  }
}

json function_call_part(const ToolCall& c, bool with_id) {
  json fc = {{"name", c.name}, {"args", wire::args_to_wire(c.arguments)}};
  if (with_id && !c.id.empty()) fc["id"] = c.id;
  return {{"functionCall", std::move(fc)}};
}

json candidate(const ChatResponse& r, json parts, bool last) {
  json c = {{"content", {{"role", "model"}, {"parts", std::move(parts)}}}, {"index", 0}};
  if (last) c["finishReason"] = gemini_finish_to(r.finish_reason);
  return c;
}

class GeminiStreamDecoder : public StreamDecoder {
 public:
  void feed(std::string_view bytes) override {
    sse_.feed(bytes, [this](const SseEvent& ev) { on_event(ev); });
  }

  Result<ChatResponse> finish() override {
    if (!error_.empty()) return wire::error(kGeminiName, error_);
    if (!done_)
      return wire::error(kGeminiName, "stream ended before a chunk with finishReason (the response was cut off)");
    ChatResponse r;
    r.model = model_;
    r.message = msg_;
    r.message.role = Role::assistant;
    r.finish_reason = gemini_finish_from(finish_, r.message);
    if (has_usage_)
      r.usage = usage_;
    else
      wire::mark_estimated_usage(r);
    return r;
  }

 private:
  void on_event(const SseEvent& ev) {
    if (!error_.empty()) return;
    json j = wire::parse_text(ev.data);
    if (j.is_discarded() || !j.is_object()) {
      error_ = "stream event is not valid JSON: " + wire::excerpt(ev.data);
      return;
    }
    if (const json* e = wire::member(j, "error")) {
      error_ = "stream carried an error: " + (e->is_object() ? wire::str(*e, "message") : e->dump());
      return;
    }
    if (std::string m = wire::str(j, "modelVersion"); !m.empty()) model_ = m;
    if (gemini_read_usage(j, usage_)) has_usage_ = true;
    const json* cands = wire::array(j, "candidates");
    if (!cands || cands->empty()) return;
    const json& c = (*cands)[0];
    if (const json* content = wire::member(c, "content")) {
      std::string delta;
      read_parts(wire::member(*content, "parts"), msg_, &delta);
      if (!delta.empty() && on_text) on_text(delta);
    }
    if (std::string f = wire::str(c, "finishReason"); !f.empty()) {
      finish_ = f;
      done_ = true;
    }
  }

  SseParser sse_;
  ChatMessage msg_;
  std::string model_, finish_, error_;
  Usage usage_;
  bool has_usage_ = false;
  bool done_ = false;
};

class GeminiDialect : public Dialect {
 public:
  std::string_view name() const override { return kGeminiName; }

  HttpRequestSpec chat_request(const ChatRequest& req, const Endpoint& ep) const override {
    json body = json::object();
    json contents = json::array();
    std::string system;
    const auto& ms = req.messages;
    for (size_t i = 0; i < ms.size(); ++i) {
      const auto& m = ms[i];
      if (m.role == Role::system) {
        if (!system.empty()) system += "\n\n";
        system += m.content;
      } else if (m.role == Role::user) {
        contents.push_back({{"role", "user"}, {"parts", json::array({{{"text", m.content}}})}});
      } else if (m.role == Role::assistant) {
        json parts = json::array();
        if (!m.content.empty() || m.tool_calls.empty()) parts.push_back({{"text", m.content}});
        for (const auto& c : m.tool_calls) parts.push_back(function_call_part(c, false));
        contents.push_back({{"role", "model"}, {"parts", std::move(parts)}});
      } else {  // consecutive tool results travel together in one user turn
        json parts = json::array();
        for (; i < ms.size() && ms[i].role == Role::tool; ++i) {
          std::string name = ms[i].name.empty() ? wire::tool_name_for(ms, i, ms[i].tool_call_id) : ms[i].name;
          parts.push_back({{"functionResponse", {{"name", name}, {"response", {{"content", ms[i].content}}}}}});
        }
        --i;
        contents.push_back({{"role", "user"}, {"parts", std::move(parts)}});
      }
    }
    if (!system.empty()) body["systemInstruction"] = {{"parts", json::array({{{"text", system}}})}};
    body["contents"] = std::move(contents);
    if (!req.tools.empty()) {
      json decls = json::array();
      for (const auto& t : req.tools) {
        json d = {{"name", t.name}, {"description", t.description}};
        if (!t.parameters.empty()) d["parameters"] = t.parameters;
        decls.push_back(std::move(d));
      }
      body["tools"] = json::array({{{"functionDeclarations", std::move(decls)}}});
    }
    json gen = json::object();
    if (req.temperature) gen["temperature"] = *req.temperature;
    if (req.max_tokens) gen["maxOutputTokens"] = *req.max_tokens;
    if (req.seed) gen["seed"] = *req.seed;
    if (!gen.empty()) body["generationConfig"] = std::move(gen);
    return wire::json_post(ep,
                           model_path(req.model) + (req.stream ? ":streamGenerateContent?alt=sse" : ":generateContent"),
                           body, "x-goog-api-key");
  }

  Result<ChatResponse> parse_chat_response(std::string_view body) const override {
    return wire::guarded<ChatResponse>(kGeminiName, [&]() -> Result<ChatResponse> {
      auto j = wire::parse_object(kGeminiName, body, "response");
      if (!j) return j.error();
      if (const json* e = wire::member(*j, "error"))
        return wire::error(kGeminiName,
                           "response is an error: " + (e->is_object() ? wire::str(*e, "message") : e->dump()));
      const json* cands = wire::array(*j, "candidates");
      if (!cands || cands->empty()) {
        std::string why;
        if (const json* pf = wire::member(*j, "promptFeedback"))
          why = " (blockReason " + wire::str(*pf, "blockReason") + ")";
        return wire::error(kGeminiName, "response has no candidates[0]" + why);
      }
      const json& c = (*cands)[0];
      const json* content = wire::member(c, "content");
      if (!content || !content->is_object())
        return wire::error(kGeminiName,
                           "response has no candidates[0].content (finishReason " + wire::str(c, "finishReason") + ")");
      ChatResponse r;
      r.model = wire::str(*j, "modelVersion");
      r.message.role = Role::assistant;
      read_parts(wire::member(*content, "parts"), r.message, nullptr);
      r.finish_reason = gemini_finish_from(wire::str(c, "finishReason"), r.message);
      if (!gemini_read_usage(*j, r.usage)) wire::mark_estimated_usage(r);
      return r;
    });
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override { return std::make_unique<GeminiStreamDecoder>(); }

  HttpRequestSpec embed_request(const EmbedRequest& req, const Endpoint& ep) const override {
    std::string m = req.model.rfind("models/", 0) == 0 ? req.model : "models/" + req.model;
    json requests = json::array();
    for (const auto& in : req.inputs)
      requests.push_back({{"model", m}, {"content", {{"parts", json::array({{{"text", in}}})}}}});
    return wire::json_post(ep, model_path(req.model) + ":batchEmbedContents", json{{"requests", std::move(requests)}},
                           "x-goog-api-key");
  }

  Result<EmbedResponse> parse_embed_response(std::string_view body) const override {
    return wire::guarded<EmbedResponse>(kGeminiName, [&]() -> Result<EmbedResponse> {
      auto j = wire::parse_object(kGeminiName, body, "embeddings response");
      if (!j) return j.error();
      EmbedResponse r;
      r.usage.estimated = true;  // Gemini reports no token counts for embeddings
      if (const json* arr = wire::array(*j, "embeddings")) {
        for (const auto& e : *arr) {
          const json* v = wire::array(e, "values");
          if (!v) return wire::error(kGeminiName, "embeddings response entry has no values array");
          r.vectors.push_back(v->get<std::vector<float>>());
        }
        return r;
      }
      if (const json* e = wire::member(*j, "embedding")) {
        const json* v = wire::array(*e, "values");
        if (!v) return wire::error(kGeminiName, "embeddings response has no embedding.values");
        r.vectors.push_back(v->get<std::vector<float>>());
        return r;
      }
      return wire::error(kGeminiName, "embeddings response has neither embeddings nor embedding");
    });
  }

  std::string describe_error(int status, std::string_view body) const override {
    std::string msg;
    json j = wire::parse_text(body);
    // The API answers errors as an object, sometimes wrapped in an array.
    if (j.is_array() && !j.empty()) j = j[0];
    if (!j.is_discarded()) {
      if (const json* e = wire::member(j, "error")) {
        msg = e->is_object() ? wire::str(*e, "message") : e->dump();
        if (e->is_object() && !wire::str(*e, "status").empty()) msg += " (" + wire::str(*e, "status") + ")";
      }
    }
    if (msg.empty()) msg = wire::excerpt(body);
    return std::string(kGeminiName) + ": HTTP " + std::to_string(status) + ": " + msg;
  }

  // "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse" -> model, method.
  static bool split_path(std::string_view path, std::string& model, std::string& method) {
    if (auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
    auto mp = path.find("/models/");
    auto colon = path.rfind(':');
    if (mp == std::string_view::npos || colon == std::string_view::npos || colon < mp + 8) return false;
    model = std::string(path.substr(mp + 8, colon - mp - 8));
    // The resource-name form ("models/gemini-2.0-flash") names the same
    // model, as the client side reads it (model_path).
    if (model.rfind("models/", 0) == 0) model.erase(0, 7);
    method = std::string(path.substr(colon + 1));
    return !model.empty();
  }

  Result<ChatRequest> parse_chat_request(std::string_view path, std::string_view body) const override {
    return wire::guarded<ChatRequest>(kGeminiName, [&]() -> Result<ChatRequest> {
      ChatRequest r;
      std::string method;
      if (!split_path(path, r.model, method))
        return wire::error(kGeminiName, "request path \"" + std::string(path) + "\" is not /models/{model}:{method}");
      r.stream = method == "streamGenerateContent";
      auto j = wire::parse_object(kGeminiName, body, "request");
      if (!j) return j.error();
      const json* sys = wire::member(*j, "systemInstruction");
      if (!sys) sys = wire::member(*j, "system_instruction");
      if (sys) {
        ChatMessage m;
        m.role = Role::system;
        read_parts(wire::member(*sys, "parts"), m, nullptr);
        // An instruction without text (no parts, or parts of no known kind)
        // instructs nothing; requests built again leave it out too.
        if (!m.content.empty()) r.messages.push_back(std::move(m));
      }
      const json* contents = wire::array(*j, "contents");
      if (!contents) return wire::error(kGeminiName, "request has no contents array");
      int next_id = 0;
      for (const auto& cj : *contents) {
        std::string role = wire::str(cj, "role");
        const json* parts = wire::array(cj, "parts");
        if (!parts) return wire::error(kGeminiName, "request content has no parts array");
        if (role == "model") {
          ChatMessage m;
          m.role = Role::assistant;
          for (const auto& p : *parts) {
            if (const json* t = wire::member(p, "text"); t && t->is_string()) m.content += t->get<std::string>();
            if (const json* fc = wire::member(p, "functionCall")) {
              ToolCall c;
              c.id = wire::str(*fc, "id");
              if (c.id.empty()) c.id = "call_" + std::to_string(next_id++);
              c.name = wire::str(*fc, "name");
              c.arguments = wire::args_from_wire(wire::member(*fc, "args"));
              m.tool_calls.push_back(std::move(c));
            }
          }
          r.messages.push_back(std::move(m));
        } else if (role == "user" || role == "function" || role.empty()) {
          ChatMessage user;
          user.role = Role::user;
          bool has_text = false;
          for (const auto& p : *parts) {
            if (const json* t = wire::member(p, "text"); t && t->is_string()) {
              user.content += t->get<std::string>();
              has_text = true;
            }
            if (const json* fr = wire::member(p, "functionResponse")) {
              ChatMessage tm;
              tm.role = Role::tool;
              tm.name = wire::str(*fr, "name");
              const json* resp = wire::member(*fr, "response");
              if (resp && resp->is_object() && resp->size() == 1 && resp->contains("content") &&
                  (*resp)["content"].is_string())
                tm.content = (*resp)["content"].get<std::string>();
              else if (resp)
                tm.content = resp->dump();
              tm.tool_call_id = wire::str(*fr, "id");
              if (tm.tool_call_id.empty()) tm.tool_call_id = unanswered_call_id(r.messages, tm.name);
              r.messages.push_back(std::move(tm));
            }
          }
          if (has_text) r.messages.push_back(std::move(user));
        } else {
          return wire::error(kGeminiName, "request content has unknown role \"" + role + "\"");
        }
      }
      if (const json* tools = wire::array(*j, "tools")) {
        for (const auto& tj : *tools) {
          const json* decls = wire::array(tj, "functionDeclarations");
          if (!decls) decls = wire::array(tj, "function_declarations");
          if (!decls) continue;
          for (const auto& d : *decls) {
            ToolSpec t;
            t.name = wire::str(d, "name");
            t.description = wire::str(d, "description");
            if (const json* p = wire::member(d, "parameters")) t.parameters = *p;
            r.tools.push_back(std::move(t));
          }
        }
      }
      if (const json* g = wire::member(*j, "generationConfig")) {
        if (const json* t = wire::member(*g, "temperature"); t && t->is_number()) r.temperature = t->get<double>();
        if (const json* t = wire::member(*g, "maxOutputTokens"); t && t->is_number()) r.max_tokens = wire::as_int64(*t);
        if (const json* t = wire::member(*g, "seed"); t && t->is_number()) r.seed = wire::as_int64(*t);
      }
      return r;
    });
  }

  // The id of the most recent call named `name` that no tool message answers yet.
  static std::string unanswered_call_id(const std::vector<ChatMessage>& ms, const std::string& name) {
    for (size_t i = ms.size(); i-- > 0;) {
      if (ms[i].role != Role::assistant) continue;
      for (const auto& c : ms[i].tool_calls) {
        if (c.name != name) continue;
        bool answered = false;
        for (size_t k = i + 1; k < ms.size(); ++k)
          if (ms[k].role == Role::tool && ms[k].tool_call_id == c.id) answered = true;
        if (!answered) return c.id;
      }
      return {};
    }
    return {};
  }

  static json response_parts(const ChatMessage& m) {
    json parts = json::array();
    if (!m.content.empty() || m.tool_calls.empty()) parts.push_back({{"text", m.content}});
    for (const auto& c : m.tool_calls) parts.push_back(function_call_part(c, true));
    return parts;
  }

  std::string render_chat_response(const ChatResponse& r) const override {
    json j = {{"candidates", json::array({candidate(r, response_parts(r.message), true)})}, {"modelVersion", r.model}};
    if (!r.usage.estimated) j["usageMetadata"] = gemini_usage_json(r.usage);
    return j.dump();
  }

  std::vector<std::string> render_chat_stream(const ChatResponse& r) const override {
    std::vector<std::string> out;
    auto event = [&](json parts, bool last) {
      json j = {{"candidates", json::array({candidate(r, std::move(parts), last)})}, {"modelVersion", r.model}};
      if (last && !r.usage.estimated) j["usageMetadata"] = gemini_usage_json(r.usage);
      out.push_back("data: " + j.dump() + "\r\n\r\n");
    };
    for (const auto& p : wire::pieces(r.message.content)) event(json::array({{{"text", p}}}), false);
    for (const auto& c : r.message.tool_calls) event(json::array({function_call_part(c, true)}), false);
    event(json::array({{{"text", ""}}}), true);
    return out;
  }

  std::string stream_content_type() const override { return "text/event-stream"; }

  Result<EmbedRequest> parse_embed_request(std::string_view path, std::string_view body) const override {
    return wire::guarded<EmbedRequest>(kGeminiName, [&]() -> Result<EmbedRequest> {
      EmbedRequest r;
      std::string method;
      if (!split_path(path, r.model, method))
        return wire::error(kGeminiName, "request path \"" + std::string(path) + "\" is not /models/{model}:{method}");
      auto j = wire::parse_object(kGeminiName, body, "embeddings request");
      if (!j) return j.error();
      auto text_of_content = [](const json& content) {
        ChatMessage m;
        read_parts(wire::member(content, "parts"), m, nullptr);
        return m.content;
      };
      if (const json* reqs = wire::array(*j, "requests")) {
        for (const auto& rq : *reqs) {
          const json* c = wire::member(rq, "content");
          if (!c) return wire::error(kGeminiName, "embeddings request entry has no content");
          r.inputs.push_back(text_of_content(*c));
        }
      } else if (const json* c = wire::member(*j, "content")) {
        r.inputs.push_back(text_of_content(*c));
      } else {
        return wire::error(kGeminiName, "embeddings request has neither requests nor content");
      }
      return r;
    });
  }

  std::string render_embed_response(const EmbedResponse& r) const override {
    json arr = json::array();
    for (const auto& v : r.vectors) arr.push_back({{"values", v}});
    json j = {{"embeddings", arr}};
    // :embedContent answers with a single "embedding"; sending both keeps one
    // renderer for both methods.
    if (r.vectors.size() == 1) j["embedding"] = {{"values", r.vectors[0]}};
    return j.dump();
  }

  std::string render_error(int status, std::string_view message) const override {
    std::string st = status == 429   ? "RESOURCE_EXHAUSTED"
                     : status == 400 ? "INVALID_ARGUMENT"
                     : status == 401 ? "UNAUTHENTICATED"
                     : status == 403 ? "PERMISSION_DENIED"
                     : status == 404 ? "NOT_FOUND"
                     : status == 503 ? "UNAVAILABLE"
                                     : "INTERNAL";
    return json{{"error", {{"code", status}, {"message", message}, {"status", st}}}}.dump();
  }
};

}  // namespace

const Dialect& gemini_dialect() {
  static const GeminiDialect d;
  return d;
}

}  // namespace kaisha::llm
