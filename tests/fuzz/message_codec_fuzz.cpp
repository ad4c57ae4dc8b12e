// Bytes of a frame from a peer node: the envelope and, inside it, the payload
// of each message type. Decoding never throws (a bad frame is an Error to
// count and drop) and a decoded envelope re-encodes to bytes that decode to
// the same envelope.
#include <cstdint>
#include <string_view>

#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace msg = kaisha::msg;

namespace {

template <class... T>
void decode_each(std::string_view bytes) {
  // Each decode must return, not throw; the value is irrelevant here.
  ((void)msg::decode<T>(bytes), ...);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);

  decode_each<msg::AgentSpec, msg::AskRequest, msg::AskReply, msg::TaskRequest, msg::TaskResult, msg::AuditRequest,
              msg::AuditVerdict, msg::ProgressEvent, msg::LlmCall, msg::LlmResult, msg::JoinRequest, msg::Heartbeat,
              msg::SpawnAgent, msg::StopAgent, msg::RequestFailed, msg::SubmitTask, msg::StatusRequest,
              msg::ClusterStatus>(bytes);

  auto env = msg::decode_envelope(bytes);
  if (!env.ok()) {
    check(env.error().code == "decode" || env.error().code == "version", "error codes as documented");
    return 0;
  }
  std::string again = msg::encode(*env);
  auto env2 = msg::decode_envelope(again);
  check(env2.ok(), "a decoded envelope re-encodes to a decodable envelope");
  check(msg::encode(*env2) == again, "re-encoding is stable");
  check(env2->payload == env->payload && env2->type == env->type && env2->id == env->id,
        "the envelope's fields survive a round trip");
  decode_each<msg::AskRequest, msg::TaskRequest, msg::SpawnAgent>(env->payload);
  return 0;
}
