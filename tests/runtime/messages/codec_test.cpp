#include "runtime/messages/codec.hpp"

#include <functional>

#include <gtest/gtest.h>

#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/cluster_messages.hpp"

namespace kaisha::msg {
namespace {

template <class T>
T round_trip(const T& v) {
  auto r = decode<T>(encode(v));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : T{};
}

TEST(Codec, AgentSpecRoundTrip) {
  AgentSpec s{"RiverPoet",        "gemini-2.0-flash", "gemini:gemini-2.0-flash",         "cloud",
              "You write poems.", "Writes poems",     json{{"invoke_expense_cost", 0.1}}};
  AgentSpec r = round_trip(s);
  EXPECT_EQ(r.name, "RiverPoet");
  EXPECT_EQ(r.model_ref, "gemini:gemini-2.0-flash");
  EXPECT_EQ(r.type, "cloud");
  EXPECT_EQ(r.system_prompt, "You write poems.");
  EXPECT_DOUBLE_EQ(r.costs["invoke_expense_cost"].get<double>(), 0.1);
}

TEST(Codec, AskRoundTrip) {
  AskRequest a{"s1", "t1", "Write a poem", 256, ""};
  AskRequest b = round_trip(a);
  EXPECT_EQ(b.session_id, "s1");
  EXPECT_EQ(b.task_id, "t1");
  EXPECT_EQ(b.prompt, "Write a poem");
  EXPECT_EQ(b.max_output_tokens, 256);

  AskReply rep;
  rep.agent = "Poet";
  rep.ok = false;
  rep.error = "boom";
  rep.usage = {12, 34, true};
  rep.latency_ms = 7;
  AskReply rr = round_trip(rep);
  EXPECT_FALSE(rr.ok);
  EXPECT_EQ(rr.error, "boom");
  EXPECT_EQ(rr.usage.input_tokens, 12);
  EXPECT_EQ(rr.usage.output_tokens, 34);
  EXPECT_TRUE(rr.usage.estimated);
  EXPECT_EQ(rr.latency_ms, 7);
}

TEST(Codec, TaskRoundTrip) {
  TaskRequest t{"s", "t", "do it"};
  EXPECT_EQ(round_trip(t).input, "do it");
  TaskResult res;
  res.task_id = "t";
  res.answer = "done";
  res.tokens_in = 5;
  res.tokens_out = 6;
  res.expense = 0.25;
  res.wall_ms = 99;
  TaskResult r = round_trip(res);
  EXPECT_EQ(r.answer, "done");
  EXPECT_DOUBLE_EQ(r.expense, 0.25);
  EXPECT_EQ(r.wall_ms, 99);
}

TEST(Codec, AuditRoundTrip) {
  AuditRequest a{"t1", "Worker1", "Sum 2 and 2", "4"};
  AuditRequest b = round_trip(a);
  EXPECT_EQ(b.producer, "Worker1");
  EXPECT_EQ(b.claimed_result, "4");
  AuditVerdict v;
  v.success = false;
  v.error_information = "wrong sum";
  v.malformed = true;
  v.quality = 0.48;
  AuditVerdict w = round_trip(v);
  EXPECT_FALSE(w.success);
  EXPECT_EQ(w.error_information, "wrong sum");
  EXPECT_TRUE(w.malformed);
  EXPECT_DOUBLE_EQ(w.quality, 0.48);
}

TEST(Codec, TaskResultMetadata) {
  TaskResult r;
  r.metadata = json{{"routing_strategy", "hybrid"}, {"speedup", 2.5}};
  TaskResult back = round_trip(r);
  EXPECT_EQ(back.metadata["routing_strategy"], "hybrid");
  EXPECT_DOUBLE_EQ(back.metadata["speedup"].get<double>(), 2.5);
}

TEST(Codec, ProgressEventCarriesJson) {
  ProgressEvent e;
  e.kind = msg::EventKind::hire;
  e.agent = "CEO";
  e.data = json{{"agent_name", "Poet"}, {"nested", json::array({1, 2, 3})}};
  ProgressEvent r = round_trip(e);
  EXPECT_EQ(r.kind, msg::EventKind::hire);
  EXPECT_EQ(r.data["nested"][2], 3);
}

TEST(Codec, LlmCallCarriesChatRequest) {
  LlmCall c;
  c.model_ref = "ollama:llama3.2";
  c.request.model = "llama3.2";
  c.request.temperature = 0.2;
  c.request.messages.push_back({llm::Role::system, "sys", {}, "", ""});
  llm::ChatMessage asst;
  asst.role = llm::Role::assistant;
  asst.tool_calls.push_back({"call_1", "GetBudget", "{}"});
  c.request.messages.push_back(asst);
  c.request.tools.push_back({"GetBudget", "budget", json{{"type", "object"}}});
  LlmCall r = round_trip(c);
  ASSERT_EQ(r.request.messages.size(), 2u);
  EXPECT_EQ(r.request.messages[0].role, llm::Role::system);
  EXPECT_EQ(r.request.messages[1].tool_calls[0].name, "GetBudget");
  ASSERT_TRUE(r.request.temperature.has_value());
  EXPECT_DOUBLE_EQ(*r.request.temperature, 0.2);
  EXPECT_FALSE(r.request.max_tokens.has_value());
  EXPECT_EQ(r.request.tools[0].parameters["type"], "object");

  LlmResult res;
  res.response.message.content = "hi";
  res.response.usage.output_tokens = 3;
  EXPECT_EQ(round_trip(res).response.message.content, "hi");
}

// ChatRequest and AgentSpec as a node of the previous version had them:
// no seed, no sampling of the hire.
struct OlderChatRequest {
  std::string model;
  std::vector<llm::ChatMessage> messages;
  std::vector<llm::ToolSpec> tools;
  std::optional<double> temperature;
  std::optional<int64_t> max_tokens;
  bool stream = false;
  MSGPACK_DEFINE_MAP(model, messages, tools, temperature, max_tokens, stream)
};
struct OlderLlmCall {
  static constexpr const char* kType = "llm_call";
  std::string model_ref;
  OlderChatRequest request;
  MSGPACK_DEFINE_MAP(model_ref, request)
};
struct OlderAgentSpec {
  static constexpr const char* kType = "agent_spec";
  std::string name, base_model, model_ref, type, system_prompt, description;
  json costs = json::object();
  MSGPACK_DEFINE_MAP(name, base_model, model_ref, type, system_prompt, description, costs)
};

// A seeded request reaches a peer of the previous version whole but the seed
// (it skips the key), and that peer's request reaches this one unseeded.
TEST(Codec, ASeedCrossesToAnOlderPeerAndBack) {
  LlmCall c;
  c.model_ref = "openai:gpt-4o";
  c.request.model = "gpt-4o";
  c.request.temperature = 0.8;
  c.request.max_tokens = 2048;
  c.request.seed = 10;
  c.request.messages.push_back({llm::Role::user, "hi", {}, "", ""});
  LlmCall same = round_trip(c);
  ASSERT_TRUE(same.request.seed.has_value());
  EXPECT_EQ(*same.request.seed, 10);

  auto old = decode<OlderLlmCall>(encode(c));
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->model_ref, "openai:gpt-4o");
  ASSERT_EQ(old->request.messages.size(), 1u);
  EXPECT_EQ(old->request.messages[0].content, "hi");
  ASSERT_TRUE(old->request.temperature.has_value());
  EXPECT_DOUBLE_EQ(*old->request.temperature, 0.8);
  EXPECT_EQ(old->request.max_tokens.value_or(0), 2048);

  auto back = decode<LlmCall>(encode(*old));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->request.seed.has_value());
  EXPECT_EQ(back->request.max_tokens.value_or(0), 2048);
}

// A hire's sampling likewise: an older host runs the agent at its own
// defaults, and a hire from an older CEO node carries none.
TEST(Codec, AHiresSamplingCrossesToAnOlderPeerAndBack) {
  AgentSpec s;
  s.name = "Solver_1";
  s.model_ref = "openai:gpt-4o";
  s.system_prompt = "You solve.";
  s.temperature = 0.8;
  s.seed = 10;
  AgentSpec same = round_trip(s);
  EXPECT_DOUBLE_EQ(same.temperature.value_or(-1), 0.8);
  EXPECT_EQ(same.seed.value_or(-1), 10);

  auto old = decode<OlderAgentSpec>(encode(s));
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->name, "Solver_1");
  EXPECT_EQ(old->system_prompt, "You solve.");

  auto back = decode<AgentSpec>(encode(*old));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->name, "Solver_1");
  EXPECT_FALSE(back->temperature.has_value());
  EXPECT_FALSE(back->seed.has_value());
}

TEST(Codec, EnvelopeWrapUnwrap) {
  AskRequest a{"s", "t", "q", 0, ""};
  Envelope e = wrap(a, {"n1", "CEO"}, {"n2", "Poet"}, "m1", "", "trace-9");
  e.deadline_ms = 1234;
  Result<Envelope> back = decode_envelope(encode(e));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->type, "ask_request");
  EXPECT_EQ(back->from, (AgentRef{"n1", "CEO"}));
  EXPECT_EQ(back->to.name, "Poet");
  EXPECT_EQ(back->trace, "trace-9");
  EXPECT_EQ(back->deadline_ms, 1234);
  auto inner = unwrap<AskRequest>(*back);
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(inner->prompt, "q");
  // The wrong type is refused, not misread.
  auto wrong = unwrap<AskReply>(*back);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("expected 'ask_reply'"), std::string::npos);
}

TEST(Codec, NewerVersionRefused) {
  Envelope e = wrap(AskRequest{}, {}, {}, "m");
  e.version = 99;
  auto r = unwrap<AskRequest>(e);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "version");
}

TEST(Codec, MissingAndUnknownFieldsTolerated) {
  // A map with an unknown key and without most known keys: known ones default.
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(2);
  pk.pack(std::string("prompt"));
  pk.pack(std::string("hello"));
  pk.pack(std::string("added_in_v2"));
  pk.pack(42);
  auto r = decode<AskRequest>(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->prompt, "hello");
  EXPECT_EQ(r->task_id, "");
}

TEST(Codec, AskCarriesItsJobAndAnOldAskHasNone) {
  AskRequest a{"s1", "t1", "Collect prices", 64, "st_2"};
  AskRequest b = round_trip(a);
  EXPECT_EQ(b.job, "st_2");
  EXPECT_EQ(b.prompt, "Collect prices");
  EXPECT_EQ(b.max_output_tokens, 64);
  // An ask from a node that predates `job`: the four fields it had, no job
  // (the employee then journals its answer itself).
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(4);
  pk.pack(std::string("session_id"));
  pk.pack(std::string("s1"));
  pk.pack(std::string("task_id"));
  pk.pack(std::string("t1"));
  pk.pack(std::string("prompt"));
  pk.pack(std::string("hi"));
  pk.pack(std::string("max_output_tokens"));
  pk.pack(32);
  auto old = decode<AskRequest>(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->task_id, "t1");
  EXPECT_EQ(old->prompt, "hi");
  EXPECT_EQ(old->max_output_tokens, 32);
  EXPECT_EQ(old->job, "");
}

// An ask as a node that predates turns reads it.
struct OldAsk : AskRequest {
  static constexpr uint32_t kVersion = 1;
};

// A turn carries the asker's messages and tools, and its answer the tool
// calls the model asked for. It goes out as version 2, so a node that only
// knows version 1 refuses it instead of answering the empty prompt; a plain
// ask still goes out as version 1, which every node reads.
TEST(Codec, ATurnGoesOutAsVersionTwoAndAPlainAskAsVersionOne) {
  AskRequest plain{"s", "t", "q", 0, ""};
  EXPECT_EQ(wrap(plain, {}, {}, "m1").version, 1u);
  AskRequest turn{"s", "t", "", 0, ""};
  turn.messages = {{llm::Role::system, "be brief", {}, "", ""},
                   {llm::Role::user, "ことばを数えて 🙂", {}, "", ""}};
  turn.tools = {llm::ToolSpec{"final_output", "ends the call", json{{"type", "object"}}}};
  Envelope e = wrap(turn, {}, {}, "m2");
  EXPECT_EQ(e.version, 2u);
  auto back = unwrap<AskRequest>(e);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->messages.size(), 2u);
  EXPECT_EQ(back->messages[1].content, "ことばを数えて 🙂");
  ASSERT_EQ(back->tools.size(), 1u);
  EXPECT_EQ(back->tools[0].name, "final_output");
  // What a version-1 node does with it (its unwrap compares with kVersion 1).
  auto old = unwrap<OldAsk>(e);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().code, "version");
  EXPECT_NE(old.error().message.find("version 2 is newer than supported version 1"), std::string::npos);

  AskReply reply;
  reply.tool_requests = {llm::ToolCall{"c1", "worker", R"({"task_input":"x"})"}};
  AskReply r = round_trip(reply);
  ASSERT_EQ(r.tool_requests.size(), 1u);
  EXPECT_EQ(r.tool_requests[0].name, "worker");
  EXPECT_EQ(r.tool_requests[0].arguments, R"({"task_input":"x"})");
}

TEST(Codec, SpawnAndStopCarryTheHireAndAnOldStopMeansAnyHire) {
  SpawnAgent sp;
  sp.spec.name = "Mist";
  sp.hire = 7;
  EXPECT_EQ(round_trip(sp).hire, 7u);
  EXPECT_EQ(round_trip(sp).spec.name, "Mist");
  EXPECT_EQ(round_trip(StopAgent{"Mist", 7}).hire, 7u);
  // A stop from a node that predates `hire`: 0, i.e. whichever hire runs.
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(1);
  pk.pack(std::string("name"));
  pk.pack(std::string("Mist"));
  auto old = decode<StopAgent>(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->name, "Mist");
  EXPECT_EQ(old->hire, 0u);
}

TEST(Codec, GarbageIsAnErrorNotACrash) {
  for (std::string junk : {std::string(""), std::string("\xc1"), std::string("\x92\x01"),
                           std::string("\x81\xa6prompt\x05"), std::string(1000, '\xff')}) {
    auto r = decode<AskRequest>(junk);
    EXPECT_FALSE(r.ok()) << "accepted junk of size " << junk.size();
    auto e = decode_envelope(junk);
    EXPECT_FALSE(e.ok());
  }
}

// A frame's container headers are checked against the frame's size before
// msgpack allocates their elements: without that, 5 bytes declaring 2^32-1
// array elements or 2^28 map entries made it allocate ~100 GB or ~13 GB up
// front (failing with bad_alloc, or reserving the memory and then failing).
TEST(Codec, ContainerLongerThanItsFrameIsRefusedBeforeAllocating) {
  for (std::string frame : {std::string("\xdd\xff\xff\xff\xff", 5), std::string("\xdf\x0f\xff\xff\xff", 5),
                            std::string("\x81\xa7payload\xdd\x01\x00\x00\x00", 14)}) {
    auto e = decode_envelope(frame);
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("size overflow"), std::string::npos) << e.error().message;
    auto a = decode<AskRequest>(frame);
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find("size overflow"), std::string::npos) << a.error().message;
  }
}

TEST(Codec, NestingDeeperThanAnyMessageIsRefused) {
  std::string frame(kMaxFrameDepth + 8, '\x91');  // arrays of one array of ...
  frame += '\xc0';
  auto e = decode_envelope(frame);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("depth size overflow"), std::string::npos) << e.error().message;
}

// The envelope is read field by field (not through MSGPACK_DEFINE_MAP's
// conversion); it accepts and refuses what that conversion did.
TEST(Codec, AnEnvelopeReadsAsTheGenericConversionReadIt) {
  auto frame = [](const std::function<void(msgpack::packer<msgpack::sbuffer>&)>& body, uint32_t entries) {
    msgpack::sbuffer buf;
    msgpack::packer<msgpack::sbuffer> pk(buf);
    pk.pack_map(entries);
    body(pk);
    return std::string(buf.data(), buf.size());
  };
  // Unknown keys are ignored, the first of two equal keys wins, a missing field keeps its default.
  const std::string ok = frame(
      [](auto& pk) {
        pk.pack(std::string("id")), pk.pack(std::string("m-1"));
        pk.pack(std::string("type")), pk.pack(std::string("ask_request"));
        pk.pack(std::string("type")), pk.pack(std::string("ask_reply"));
        pk.pack(std::string("from")), pk.pack_map(2), pk.pack(std::string("node")), pk.pack(std::string("ceo")),
            pk.pack(std::string("name")), pk.pack(std::string("CEO"));
        pk.pack(std::string("future_field")), pk.pack(42);
      },
      5);
  auto e = decode_envelope(ok);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->id, "m-1");
  EXPECT_EQ(e->type, "ask_request");
  EXPECT_EQ(e->from, (AgentRef{"ceo", "CEO"}));
  EXPECT_EQ(e->to, AgentRef{});
  EXPECT_EQ(e->envelope_version, kEnvelopeVersion);
  EXPECT_EQ(e->budget_ms, 0);
  // Each decodes alike through the generic conversion.
  auto generic = decode_as<Envelope>(ok, "envelope");
  ASSERT_TRUE(generic.ok()) << generic.error().message;
  EXPECT_EQ(generic->type, e->type);
  EXPECT_EQ(generic->from, e->from);

  // A key that is not a string, or a field of the wrong type, is an error.
  for (const std::string& bad :
       {frame([](auto& pk) { pk.pack(7), pk.pack(std::string("x")); }, 1),
        frame([](auto& pk) { pk.pack(std::string("id")), pk.pack(7); }, 1),
        frame([](auto& pk) { pk.pack(std::string("from")), pk.pack(std::string("ceo")); }, 1)}) {
    auto r = decode_envelope(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("envelope: malformed msgpack"), std::string::npos) << r.error().message;
    EXPECT_FALSE(decode_as<Envelope>(bad, "envelope").ok());
  }
}

}  // namespace
}  // namespace kaisha::msg
