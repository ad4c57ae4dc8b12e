// Traces through the real binary: `kaisha run` writes one trace per task to
// a trace file (the task's root, the CEO's model calls, the employee's turn
// and its model call, a tool call whose traceparent reached an MCP server's
// _meta), with prompts left out unless the config opts in; and two cluster
// nodes export to a loopback OTLP/HTTP receiver, where the employee's turn
// on the worker node is the child of the CEO node's hop to it.
#include <httplib.h>

#include <mutex>
#include <thread>

#include "runtime/http/fetch_blocking.hpp"
#include "runtime/telemetry/otlp_json.hpp"
#include "runtime/telemetry/prometheus_text.hpp"
#include "tests/e2e/cluster_fixture.hpp"

namespace kaisha::e2e {
namespace {

using telemetry::Span;
using telemetry::SpanBatch;

struct Found {
  const Span* span = nullptr;
  std::string node;
};

// Every span of `batches` with its node, by name (the first of that name).
Found find_span(const std::vector<SpanBatch>& batches, const std::string& name) {
  for (const auto& b : batches)
    for (const auto& s : b.spans)
      if (s.name == name) return Found{&s, b.node};
  return {};
}

std::string text_attr(const Span& s, const char* key) {
  const auto* v = s.find(key);
  return v && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : "";
}
int64_t int_attr(const Span& s, const char* key) {
  const auto* v = s.find(key);
  return v && std::holds_alternative<int64_t>(*v) ? std::get<int64_t>(*v) : -1;
}
bool has_attr(const std::vector<SpanBatch>& batches, const char* key) {
  for (const auto& b : batches)
    for (const auto& s : b.spans)
      if (s.find(key)) return true;
  return false;
}

const char* kRunScript = R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Helper, base_model: gemini-2.0-flash, system_prompt: "You help.", description: "A helper" }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Helper, prompt: "秘密の質問 🚀" } } ] }
  - match: { model: ceo-model, turn: 2 }
    reply: { tool_calls: [ { name: t__meta, arguments: {} } ] }
  - match: { model: ceo-model, turn: 3 }
    reply: { text: "Final: {{last_tool}}" }
  - match: { model: gemini-2.0-flash }
    reply: { text: "秘密の答え", usage: { input_tokens: 70, output_tokens: 9 } }
)";

class TraceTest : public ClusterE2eTest {
 protected:
  std::string run_config(bool include_text) {
    ConfigOptions o;
    o.extra = std::string("mcp_servers:\n  - name: t\n    command: ") + MCP_TEST_SERVER + "\n" +
              "telemetry:\n  traces:\n    file: " + dir_.file("traces.jsonl") +
              "\n    include_text: " + (include_text ? "true" : "false") + "\n";
    return dir_.write("config.yaml", config_yaml(o));
  }
  std::vector<SpanBatch> trace_file() {
    std::ifstream in(dir_.file("traces.jsonl"));
    std::stringstream ss;
    ss << in.rdbuf();
    auto b = telemetry::decode_otlp_jsonl(ss.str());
    EXPECT_TRUE(b.ok()) << b.error().message;
    return b.ok() ? *b : std::vector<SpanBatch>{};
  }
};

TEST_F(TraceTest, ARunWritesOneTracePerTaskWithTheGenAiSpansAndNoPromptText) {
  start_mock(kRunScript);
  RunResult r = run_json(run_config(false), "トレースして");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto batches = trace_file();
  ASSERT_FALSE(batches.empty());

  Found root = find_span(batches, "invoke_agent CEO");
  ASSERT_TRUE(root.span) << "no root span";
  EXPECT_TRUE(root.span->parent_span_id.empty());
  EXPECT_EQ(text_attr(*root.span, "kaisha.task.id"), r.result().value("task", ""));
  EXPECT_EQ(int_attr(*root.span, "gen_ai.usage.input_tokens"), r.result()["tokens_in"].get<int64_t>());
  size_t spans = 0;
  for (const auto& b : batches)
    for (const auto& s : b.spans) {
      ++spans;
      EXPECT_EQ(s.trace_id, root.span->trace_id) << s.name;  // one trace for the task
      EXPECT_GE(s.end_unix_ns, s.start_unix_ns) << s.name;
    }

  // The helper's turn, under the task, and its model call under the turn.
  Found turn = find_span(batches, "invoke_agent Helper");
  ASSERT_TRUE(turn.span);
  EXPECT_EQ(turn.span->parent_span_id, root.span->span_id);
  Found helper_chat = find_span(batches, "chat gemini-2.0-flash");
  ASSERT_TRUE(helper_chat.span);
  EXPECT_EQ(helper_chat.span->parent_span_id, turn.span->span_id);
  EXPECT_EQ(text_attr(*helper_chat.span, "gen_ai.operation.name"), "chat");
  EXPECT_EQ(text_attr(*helper_chat.span, "gen_ai.request.model"), "gemini-2.0-flash");
  EXPECT_EQ(text_attr(*helper_chat.span, "gen_ai.agent.name"), "Helper");
  EXPECT_EQ(int_attr(*helper_chat.span, "gen_ai.usage.input_tokens"), 70);
  EXPECT_EQ(int_attr(*helper_chat.span, "gen_ai.usage.output_tokens"), 9);

  // The CEO's four model calls, under the task.
  int ceo_calls = 0;
  for (const auto& b : batches)
    for (const auto& s : b.spans)
      if (s.name == "chat ceo-model") {
        ++ceo_calls;
        EXPECT_EQ(s.parent_span_id, root.span->span_id);
      }
  EXPECT_EQ(ceo_calls, 4);
  // The CEO's tool calls, its own (the hire) and the MCP tool, each one span
  // under the task; the ask is the helper's turn (invoke_agent), not a tool span.
  EXPECT_EQ(spans, 1u + 4 + 2 + 1 + 1) << "root, 4 CEO calls, 2 tool calls, the turn, its call";
  EXPECT_FALSE(find_span(batches, "execute_tool AskAgent").span);
  for (const char* name : {"execute_tool AgentCreator", "execute_tool t__meta"}) {
    int n = 0;
    for (const auto& b : batches)
      for (const auto& s : b.spans)
        if (s.name == name) {
          ++n;
          EXPECT_EQ(s.parent_span_id, root.span->span_id) << name;
          EXPECT_EQ(s.status, telemetry::SpanStatus::ok) << name;
          EXPECT_FALSE(text_attr(s, "gen_ai.tool.call.id").empty()) << name;
        }
    EXPECT_EQ(n, 1) << name;
  }

  // The MCP tool's span, whose traceparent the server received in _meta.
  Found tool = find_span(batches, "execute_tool t__meta");
  ASSERT_TRUE(tool.span);
  EXPECT_EQ(tool.span->parent_span_id, root.span->span_id);
  EXPECT_EQ(text_attr(*tool.span, "gen_ai.tool.name"), "t__meta");
  const std::string answer = r.result().value("answer", "");
  EXPECT_NE(answer.find("00-" + root.span->trace_id + "-" + tool.span->span_id + "-01"), std::string::npos) << answer;

  // No prompt or answer text unless the config opts in.
  EXPECT_FALSE(has_attr(batches, "gen_ai.input.messages"));
  EXPECT_FALSE(has_attr(batches, "gen_ai.output.messages"));
}

TEST_F(TraceTest, WithIncludeTextTheSpansCarryThePromptsAndAnswers) {
  start_mock(kRunScript);
  RunResult r = run_json(run_config(true), "トレースして");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto batches = trace_file();
  Found chat = find_span(batches, "chat gemini-2.0-flash");
  ASSERT_TRUE(chat.span);
  EXPECT_EQ(text_attr(*chat.span, "gen_ai.input.messages"), "秘密の質問 🚀");
  EXPECT_EQ(text_attr(*chat.span, "gen_ai.output.messages"), "秘密の答え");
}

// A loopback OTLP/HTTP receiver: every POST /v1/traces, decoded.
class Receiver {
 public:
  Receiver() {
    server_.Post("/v1/traces", [this](const httplib::Request& req, httplib::Response& res) {
      auto b = telemetry::decode_otlp_json(req.body);
      std::lock_guard<std::mutex> lock(mu_);
      if (!b.ok()) {
        errors_.push_back(b.error().message);
        res.status = 400;
        return;
      }
      content_types_.push_back(req.get_header_value("Content-Type"));
      for (auto& x : *b) batches_.push_back(std::move(x));
      res.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/traces"; }
  std::vector<SpanBatch> batches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return batches_;
  }
  std::vector<std::string> errors() const {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }
  std::vector<std::string> content_types() const {
    std::lock_guard<std::mutex> lock(mu_);
    return content_types_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<SpanBatch> batches_;
  std::vector<std::string> errors_, content_types_;
};

TEST_F(TraceTest, ASpanTreeCrossesTwoClusterNodesThroughTheEnvelope) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "You write poems.", description: "Poems" }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Poet, prompt: "A haiku about rivers" } } ] }
  - match: { model: ceo-model, turn: 2 }
    reply: { text: "The poet answered" }
  - match: { model: llama3.2 }
    reply: { text: "Rivers hurry home", usage: { input_tokens: 120, output_tokens: 40 } }
)");
  Receiver receiver;
  ConfigOptions o;
  o.extra = "telemetry:\n  traces:\n    endpoint: " + receiver.url() + "\n";
  const std::string company = dir_.write("company.yaml", config_yaml(o));
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true},
                                        {"poets", "127.0.0.1", 0, {"llama3.2"}, 100, false}};
  // Both nodes also serve /metrics (and the CEO node /events) on a port of
  // their own: the CEO node's from cluster.yaml, the worker's from --http.
  std::map<std::string, std::string> http;
  for (const auto& n : nodes) http[n.name] = "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port());
  nodes[0].http = http["ceo"];
  const std::string cluster = write_cluster(nodes, company);
  start_node(cluster, "ceo");
  start_node(cluster, "poets", {}, {"--http", http["poets"]});
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 2)) << node_logs();
  RunResult r = kaisha({"submit", "--cluster", ceo, "--json", "--timeout", "60", "Write a river haiku"}, {},
                       std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();

  // Each node exports on its own, within about a second of the spans ending.
  ASSERT_TRUE(wait_for(
      [&] {
        auto b = receiver.batches();
        return find_span(b, "invoke_agent CEO").span && find_span(b, "chat llama3.2").span;
      },
      std::chrono::seconds(30)))
      << node_logs();
  EXPECT_TRUE(receiver.errors().empty()) << receiver.errors().front();
  for (const auto& t : receiver.content_types()) EXPECT_EQ(t, "application/json");
  auto batches = receiver.batches();
  Found root = find_span(batches, "invoke_agent CEO");
  Found hop = find_span(batches, "ask Poet");
  Found turn = find_span(batches, "invoke_agent Poet");
  Found chat = find_span(batches, "chat llama3.2");
  ASSERT_TRUE(root.span && hop.span && turn.span && chat.span) << node_logs();
  EXPECT_EQ(root.node, "ceo");
  EXPECT_EQ(hop.node, "ceo");
  EXPECT_EQ(turn.node, "poets");
  EXPECT_EQ(chat.node, "poets");
  EXPECT_EQ(hop.span->parent_span_id, root.span->span_id);
  EXPECT_EQ(hop.span->kind, telemetry::SpanKind::client);
  EXPECT_EQ(text_attr(*hop.span, "kaisha.node.target"), "poets");
  EXPECT_EQ(turn.span->parent_span_id, hop.span->span_id);
  EXPECT_EQ(chat.span->parent_span_id, turn.span->span_id);
  for (const Found* f : {&hop, &turn, &chat}) EXPECT_EQ(f->span->trace_id, root.span->trace_id);
  EXPECT_EQ(text_attr(*chat.span, "gen_ai.provider.name"), "ollama");
  EXPECT_EQ(int_attr(*chat.span, "gen_ai.usage.input_tokens"), 120);
  EXPECT_EQ(int_attr(*chat.span, "gen_ai.usage.output_tokens"), 40);
  EXPECT_FALSE(has_attr(batches, "gen_ai.input.messages"));

  // Each node's /metrics: the worker made the employee's model call and read the ask.
  auto scrape = [&](const std::string& node) {
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = "http://" + http[node] + "/metrics";
    auto res = http::fetch_blocking(req, http::HttpOptions{});
    EXPECT_EQ(res.status, 200) << node << " " << res.body << node_logs();
    auto p = telemetry::parse_prometheus_text(res.body);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? *p : telemetry::ParsedExposition{};
  };
  auto worker = scrape("poets");
  EXPECT_EQ(worker.value("kaisha_model_calls_total", {{"model", "llama3.2"}, {"outcome", "ok"}}), 1);
  EXPECT_EQ(worker.value("kaisha_model_tokens_total", {{"model", "llama3.2"}, {"direction", "input"}}), 120);
  EXPECT_EQ(worker.value("kaisha_cluster_messages_total", {{"direction", "in"}, {"type", "ask_request"}}), 1);
  EXPECT_EQ(worker.value("kaisha_cluster_members", {{"state", "alive"}}), 2);
  const auto age = worker.value("kaisha_cluster_heartbeat_age_seconds", {{"node", "ceo"}});
  ASSERT_TRUE(age.has_value());
  EXPECT_GE(*age, 0);
  EXPECT_LT(*age, 30);
  EXPECT_EQ(worker.value("kaisha_cluster_impostors_total"), 0);
  auto boss = scrape("ceo");
  EXPECT_EQ(boss.value("kaisha_tasks_total", {{"outcome", "completed"}}), 1);
  EXPECT_EQ(boss.value("kaisha_cluster_messages_total", {{"direction", "out"}, {"type", "ask_request"}}), 1);
  EXPECT_EQ(boss.value("kaisha_model_calls_total", {{"model", "ceo-model"}, {"outcome", "ok"}}), 3);
  EXPECT_FALSE(boss.value("kaisha_model_calls_total", {{"model", "llama3.2"}}).has_value());
  // The CEO node's events, whole, for the submitted task, found through cluster.yaml.
  RunResult w = kaisha({"watch", "--cluster", cluster, "--task", r.result().value("task", ""), "--json"});
  EXPECT_EQ(w.exit_code, 0) << w.describe();
  EXPECT_NE(w.out.find("\"event\":\"final\""), std::string::npos) << w.out;
}

TEST_F(TraceTest, WatchingAClusterNeedsItsCeoNodesHttpAddress) {
  const std::string yaml = dir_.write("plain.yaml",
                                      "cluster: { allow_plaintext: true }\n"
                                      "nodes:\n  boss: { bind: tcp://127.0.0.1:7101, ceo: true }\n");
  RunResult w = kaisha({"watch", "--cluster", yaml});
  EXPECT_EQ(w.exit_code, 2) << w.describe();
  EXPECT_NE(w.err.find("the CEO node 'boss' has no 'http' address"), std::string::npos) << w.err;
  RunResult addr = kaisha({"watch", "--cluster", "10.0.0.1:7101"});  // submit's --cluster takes an address
  EXPECT_EQ(addr.exit_code, 2) << addr.describe();
  EXPECT_NE(addr.err.find("--cluster expects the cluster's file (cluster.yaml)"), std::string::npos) << addr.err;
  RunResult both = kaisha({"watch", "127.0.0.1:1", "--cluster", yaml});
  EXPECT_EQ(both.exit_code, 2) << both.describe();
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace kaisha::e2e
