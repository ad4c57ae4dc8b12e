// The pyramid strategy's agent library (YAML). parse() never throws: a file
// that breaks a rule is an Error with code "config" naming where. A library
// it accepts must keep every rule it promises (runtime/pyramid/
// agent_library.hpp), so the checks below restate those rules from the
// outside, without the loader's code.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/pyramid/agent_library.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
using kaisha::pyramid::AgentDefinition;
using kaisha::pyramid::AgentLibrary;

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto r = AgentLibrary::parse(text, "fuzz.yaml");
  if (!r.ok()) {
    check(r.error().code == "config", "agent library errors have code config");
    check(r.error().message.rfind("fuzz.yaml", 0) == 0, "agent library errors name the file");
    return 0;
  }
  const AgentLibrary& lib = *r;
  int judges = 0;
  for (const AgentDefinition& a : lib.agents()) {
    if (a.level == -1) ++judges;
    check(a.level == -1 || a.level >= 1, "an agent's level is -1 or >= 1");
    for (const auto& t : a.available_tools) {
      check(listed(kaisha::pyramid::level0_tools(), t) || lib.find(t) != nullptr,
            "every listed tool is a level-0 tool or an agent");
      if (a.level == -1) check(listed(kaisha::pyramid::judge_tools(), t), "the judge only reads and runs");
    }
    int sub_agents = 0;
    for (const AgentDefinition* c : lib.callees(a)) {
      if (c->level < 1) continue;  // the judge: anyone may call it
      check(c->level < a.level, "a sub-agent's level is strictly below its caller's");
      ++sub_agents;
    }
    check(sub_agents <= lib.max_children(), "no agent lists more than max_children sub-agents");
  }
  check(judges <= 1, "at most one judge");
  // shape() walks the call graph recursively: a cycle the loader let through
  // would overflow the stack here.
  const auto shape = lib.shape();
  check(shape.functional <= static_cast<int>(lib.agents().size()), "functional agents are agents of the library");
  return 0;
}
