// Parameters against a parameter schema, as JSON-RPC params and the
// arguments of a model's tool call are checked. Input: the schema's JSON, a
// '\n', the value's JSON (both may come from a peer or a model). The checker
// never throws, whatever the schema; errors say where.
#include <cstdint>
#include <string_view>

#include "runtime/core/params_check.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return 0;
  json schema = json::parse(text.substr(0, nl), nullptr, false);
  json value = json::parse(text.substr(nl + 1), nullptr, false);
  if (schema.is_discarded() || value.is_discarded()) return 0;

  auto s = kaisha::check_params(schema, value);
  if (!s.ok()) {
    check(s.error().code == "invalid_params", "params errors have code invalid_params");
    check(s.error().message.rfind("params", 0) == 0, "params errors name the location");
    (void)json(s.error().message).dump();  // goes back to the peer or model as JSON
  }
  return 0;
}
