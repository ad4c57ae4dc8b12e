// The "message" of an A2A request (message/send, SendMessage), either
// protocol era, as a peer sends it. read_message and parts_text never throw
// whatever the JSON; what they return is valid UTF-8 text.
#include <cstdint>
#include <string_view>

#include "protocols/a2a/a2a_wire.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  json message = json::parse(text, nullptr, false);
  if (message.is_discarded()) return 0;

  auto r = kaisha::a2a::read_message(message);
  if (r.ok()) {
    check(valid_utf8(r->text) && valid_utf8(r->message_id) && valid_utf8(r->role), "a read message is valid UTF-8");
  } else {
    check(r.error().message.rfind("params.message", 0) == 0, "errors name the location");
    (void)json(r.error().message).dump();
  }
  if (message.is_object() && message.contains("parts"))
    check(valid_utf8(kaisha::a2a::parts_text(message["parts"])), "parts text is valid UTF-8");
  if (message.is_object()) {
    (void)kaisha::a2a::read_stream_event(message);
    if (message.contains("state")) (void)kaisha::a2a::parse_state(message["state"]);
  }
  return 0;
}
