// kaisha's configuration file (YAML). parse_config takes the text itself, so
// no temporary file is needed. It never throws: anything wrong is an Error
// with code "config" naming where.
#include <cstdint>
#include <string>

#include "runtime/config/config_loader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = kaisha::config::parse_config(text, "fuzz.yaml");
  if (!r.ok()) {
    check(r.error().code == "config", "config errors have code config");
    check(r.error().message.rfind("fuzz.yaml", 0) == 0, "config errors name the file");
  }
  return 0;
}
