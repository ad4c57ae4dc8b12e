// A routing model's answer (pyramid.router: model or both): reading it never
// throws; scores it accepts are known agents between 0 and 1; a decision
// made from them routes to a library agent, best score first.
#include <cstdint>
#include <map>
#include <string_view>

#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/pyramid/agent_router.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace py = kaisha::pyramid;

namespace {

const char* kLibrary = R"(agents:
  - {name: judge_agent, level: -1, description: checks results, available_tools: [file_read]}
  - {name: writer_agent, level: 1, description: writes poems and notes, available_tools: [final_output]}
  - {name: coder_agent, level: 1, description: writes and runs Python code, available_tools: [final_output]}
  - {name: lead_agent, level: 2, description: plans and delegates, available_tools: [writer_agent, coder_agent]}
)";

const py::AgentRouter& router() {
  static const py::AgentLibrary library = py::AgentLibrary::parse(kLibrary, "fuzz.yaml").value();
  static const py::AgentRouter r = [] {
    kaisha::memory::HashedNgramEmbedder embedder(64);
    std::map<std::string, kaisha::memory::Vector> v;
    for (const auto& a : library.agents())
      if (a.level >= 1) v[a.name] = embedder.embed_one(py::AgentRouter::description_text(a));
    return py::AgentRouter::create(library, std::move(v), 0.3).value();
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view answer(reinterpret_cast<const char*>(data), size);
  const py::AgentRouter& r = router();
  auto scores = r.read_model_scores(answer);
  if (!scores.ok()) {
    check(!scores.error().message.empty(), "a refused answer says why");
    return 0;
  }
  check(!scores->empty(), "an accepted answer scores some agent");
  for (const auto& [name, s] : *scores) {
    check(name == "writer_agent" || name == "coder_agent" || name == "lead_agent", "only agents of level >= 1 score");
    check(s >= 0 && s <= 1, "a score is between 0 and 1");
  }
  py::RouteDecision base = r.decide({{"writer_agent", 0.5}}, "embedding");
  for (auto method : {py::RouteMethod::model, py::RouteMethod::both}) {
    py::RouteDecision d = r.rescore(base, *scores, method);
    check(d.agent == "writer_agent" || d.agent == "coder_agent" || d.agent == "lead_agent", "it routes to an agent");
    check(d.scores.size() == 3, "every candidate is scored");
    for (size_t i = 1; i < d.scores.size(); ++i)
      check(d.scores[i - 1].second + 1e-9 >= d.scores[i].second, "candidates are listed best first");
    check(d.new_task == (d.scores.front().second < 0.3), "below the threshold is a new task, at the top agent");
    if (d.new_task) check(d.agent == "lead_agent", "a new task goes to the top agent");
  }
  return 0;
}
