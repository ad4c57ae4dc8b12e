// An OTLP/HTTP JSON trace export, as a collector or `kaisha` reading a trace
// file takes it: decoding never crashes and refuses with a reason; what it
// accepts encodes and decodes again to the same spans.
#include <cstdint>
#include <string_view>

#include "runtime/telemetry/otlp_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace t = kaisha::telemetry;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto batches = t::decode_otlp_json(text);
  if (!batches.ok()) {
    check(!batches.error().message.empty(), "a refusal says why");
    return 0;
  }
  for (const auto& b : *batches) {
    auto again = t::decode_otlp_json(t::encode_otlp_json(b));
    check(again.ok(), "an encoded batch decodes");
    size_t spans = 0;
    for (const auto& a : *again) spans += a.spans.size();
    check(spans == b.spans.size(), "an encoded batch keeps every span");
    if (!again->empty() && !b.spans.empty()) {
      check((*again)[0].spans[0].span_id == b.spans[0].span_id, "a span keeps its id");
      check((*again)[0].spans[0].attributes.size() == b.spans[0].attributes.size(), "a span keeps its attributes");
    }
  }
  return 0;
}
