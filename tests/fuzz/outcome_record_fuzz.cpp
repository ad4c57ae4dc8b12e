// A kept outcome as the journal stores it (outcome_codec.hpp), read back by
// `kaisha resume`: decode never throws; whatever it accepts encodes, and the
// encoding decodes to the same encoding (a record read back is the record
// written). ReplayLog, given the input's lines as records, fails cleanly or
// answers for every outcome it holds. A kept step of an employee's tool
// loop (ask_step.hpp) is held to the same: never throws, reads back as written.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/driver/ask_step.hpp"
#include "runtime/driver/outcome_codec.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/driver/replay_log.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace dr = kaisha::driver;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto o = dr::decode(text);
  if (o.ok()) {
    const std::string once = dr::encode(*o);
    auto again = dr::decode(once);
    check(again.ok(), "an encoded outcome decodes");
    check(dr::encode(*again) == once, "an outcome read back encodes as it was written");
    check(dr::id_of(dr::with_id(*o, 7)) == 7, "with_id renumbers");
  } else {
    check(!o.error().message.empty(), "a record that cannot be read says why");
  }
  auto step = dr::decode_ask_step(text);
  if (step.ok()) {
    const std::string once = dr::encode(*step);
    auto again = dr::decode_ask_step(once);
    check(again.ok(), "an encoded ask step decodes");
    check(dr::encode(*again) == once, "an ask step read back encodes as it was written");
  } else {
    check(!step.error().message.empty(), "a step that cannot be read says why");
  }
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  auto log = dr::ReplayLog::from_records(lines, {{3, lines}});
  if (log.ok())
    for (const auto& kept : log->outcomes()) check(log->answered(dr::id_of(kept)), "a kept outcome answers its call");
  if (log.ok()) check(log->ask_steps(3) == lines, "an ask's steps are kept as they were read");
  return 0;
}
