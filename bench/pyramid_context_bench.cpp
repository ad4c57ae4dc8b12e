// The pyramid's context, measured (infiagent.md §10 items 40 and 43):
//
//  1. Context assembly with 10,000 files in the task's workspace index: the
//     time to build one call's messages (C_sys + C_LM + C_SM + C_ENV), and
//     C_LM's tokens against its budget.
//  2. 1,000 tool calls across nested agents (a lead calling a worker, each
//     worker call writing files), driven through the pure driver with
//     instant answers: the largest prompt so far against everything said
//     so far (|H|), after every turn. The two series go to a CSV file and a
//     PNG plot of the largest prompt against |H|; the
//     largest prompt must stay below a bound that does not grow with |H|.
//
// Usage: bench_pyramid_context [CSV_PATH [PNG_PATH]]
//        (default pyramid_context.csv, pyramid_context.png)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "runtime/plot/line_plot.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/pyramid/pyramid_driver.hpp"

using namespace kaisha;
using namespace kaisha::pyramid;
using namespace kaisha::driver;

namespace {

const char* kLibrary = R"(agents:
  - name: worker
    level: 1
    description: writes result files
    responsibility: Write the files task {task_id} needs.
    workflow: Write each file, then call final_output naming them.
    available_tools: [file_write, final_output]
    max_turns: 1000
  - name: lead
    level: 2
    description: splits the work
    responsibility: Lead task {task_id}.
    workflow: Call worker for each part, then call final_output.
    available_tools: [worker, final_output]
    max_turns: 1000
)";

template <class T>
T must(Result<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", r.error().message.c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void context_assembly(const AgentLibrary& library, const AgentContext& context) {
  WorkspaceIndex index(llm::estimate_tokens);
  for (int i = 0; i < 10000; ++i)
    index.describe("results/batch" + std::to_string(i % 50) + "/part" + std::to_string(i % 7) + "/file" +
                       std::to_string(i) + ".json",
                   "measurements of run " + std::to_string(i) + " (temperature, pressure, yield)");
  CallTree tree;
  const uint64_t lead = tree.push(0, "lead", "Lead the task", "Analyse every result file");
  const uint64_t call = tree.push(lead, "worker", "Write the files", "Summarise batch 7");
  std::vector<llm::ChatMessage> env = {{llm::Role::user, "Summarise batch 7", {}, "", ""}};
  const int64_t budget = 2000;
  std::vector<double> us;
  size_t bytes = 0;
  double first_us = 0;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto messages = context.messages(*library.find("worker"), "t-1", index, budget, tree, call, env);
    const auto t1 = std::chrono::steady_clock::now();
    const double took = std::chrono::duration<double, std::micro>(t1 - t0).count();
    if (i == 0)
      first_us = took;
    else
      us.push_back(took);
    bytes = messages[1].content.size();
  }
  const ContextParts parts =
      context.parts(*library.find("worker"), "t-1", index, budget, tree, call, env, llm::estimate_tokens);
  std::printf(
      "context assembly, 10,000 indexed files: first call %.0f us (the index is collapsed to its budget), "
      "then p50 %.1f us per call (199 calls); C_LM %lld tokens (budget %lld), shared message %zu bytes; "
      "C_sys %lld, C_SM %lld, C_ENV %lld tokens\n",
      first_us, median(us), static_cast<long long>(parts.long_term.tokens), static_cast<long long>(budget), bytes,
      static_cast<long long>(parts.system.tokens), static_cast<long long>(parts.short_term.tokens),
      static_cast<long long>(parts.environment.tokens));
}

// Answers the driver's effects at once: the lead calls the worker with a new
// part each turn; a worker call writes four files, then ends.
void prompt_bound(const PyramidSetup& setup, const std::string& csv_path, const std::string& png_path) {
  QualityScores quality;
  RouteDecision route;
  route.agent = "lead";
  PyramidDriver driver(setup, quality, "t-1", "Write 250 parts of the report", route);
  std::deque<Effect> queue;
  auto take = [&](Effects e) {
    for (auto& x : e) queue.push_back(std::move(x));
  };
  take(driver.start());
  std::ofstream csv(csv_path);
  csv << "tool_calls,history_tokens,largest_prompt_tokens\n";
  int tool_calls = 0, part = 0;
  std::map<std::string, int> writes;  // per worker call: files written so far (by first message)
  int64_t first_half_max = 0;
  bool finished = false;
  std::vector<std::pair<double, double>> largest, history;  // against |H|
  while (!queue.empty() && !finished) {
    Effect e = std::move(queue.front());
    queue.pop_front();
    if (auto* h = std::get_if<Hire>(&e)) {
      take(driver.on(HireAnswered{h->id, true, false, "", json::object()}));
    } else if (auto* t = std::get_if<RunTool>(&e)) {
      take(driver.on(ToolRan{t->id, company::ToolResult::success("written", json{{"bytes", 4096}})}));
    } else if (auto* a = std::get_if<Ask>(&e)) {
      AskAnswered r;
      r.id = a->id;
      r.ok = true;
      r.reply.usage = llm::Usage{100, 20, true};
      if (a->tools.empty()) {
        r.reply.output = "Earlier: parts written, nothing failed.";  // a summary request
      } else if (a->agent == "lead") {
        if (tool_calls >= 1000) {
          r.reply.tool_requests = {{"f", "final_output", R"({"status":"success","output":"all parts written"})"}};
        } else {
          r.reply.output = "Next, part " + std::to_string(part) + ".";
          r.reply.tool_requests = {
              {"c" + std::to_string(part), "worker",
               json{{"task_input", "Write part " + std::to_string(part) + " of the report as four files"}}.dump()}};
          ++part;
        }
        ++tool_calls;
      } else {
        const std::string key = a->messages.size() > 2 ? a->messages[2].content : "";
        int& n = writes[key];
        if (n < 4) {
          r.reply.tool_requests = {
              {"w" + std::to_string(n), "file_write",
               json{{"file_path", "part/" + std::to_string(n) + ".md"}, {"content", std::string(1200, 'x')}}.dump()}};
          ++n;
        } else {
          r.reply.tool_requests = {{"f", "final_output", R"({"status":"success","output":"part written"})"}};
        }
        ++tool_calls;
      }
      take(driver.on(r));
      csv << tool_calls << "," << driver.history_tokens() << "," << driver.largest_prompt_tokens() << "\n";
      if (tool_calls <= 500) first_half_max = driver.largest_prompt_tokens();
      const auto h = static_cast<double>(driver.history_tokens());
      largest.emplace_back(h, static_cast<double>(driver.largest_prompt_tokens()));
      history.emplace_back(h, h);
    } else if (std::holds_alternative<Finish>(e)) {
      finished = true;
    }
  }
  // What no prompt can exceed, whatever |H|: the system prompt, the index
  // and call-stack budgets, tau, and the latest interaction kept verbatim.
  std::printf(
      "1,000+ tool calls (%d) across a lead and its worker calls, tau %lld, C_LM budget %lld: |H| %lld "
      "tokens, largest prompt %lld tokens (%lld after the first 500 calls), %lld compressions; series in %s\n",
      tool_calls, static_cast<long long>(setup.env_budget_tokens), static_cast<long long>(setup.index_budget_tokens),
      static_cast<long long>(driver.history_tokens()), static_cast<long long>(driver.largest_prompt_tokens()),
      static_cast<long long>(first_half_max), static_cast<long long>(driver.compressions()), csv_path.c_str());
  plot::LinePlot figure("Largest prompt vs |H|, " + std::to_string(tool_calls) + " tool calls", "|H| (tokens)",
                        "tokens");
  figure.add("|H|: everything said", plot::Rgb{150, 150, 150}, std::move(history));
  figure.add("largest prompt so far", plot::Rgb{200, 40, 40}, std::move(largest));
  std::string error;
  if (figure.write_png(png_path, 800, 500, &error))
    std::printf("plot in %s\n", png_path.c_str());
  else
    std::fprintf(stderr, "%s\n", error.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string csv = argc > 1 ? argv[1] : "pyramid_context.csv";
  const std::string png = argc > 2 ? argv[2] : "pyramid_context.png";
  auto library = std::make_shared<const AgentLibrary>(must(AgentLibrary::parse(kLibrary, "bench library")));
  auto context = std::make_shared<const AgentContext>(must(AgentContext::load()));
  context_assembly(*library, *context);

  PyramidSetup setup;
  setup.library = library;
  setup.context = context;
  setup.texts = std::make_shared<const LoopTexts>(must(LoopTexts::load()));
  for (const std::string t : {"file_write", "final_output"})
    setup.level0[t] = llm::ToolSpec{t, "the " + t + " tool", json::object()};
  setup.cost_of = [](const std::string&) { return economy::ModelCost{}; };
  setup.count = llm::estimate_tokens;
  setup.enforce_judge = false;
  setup.env_budget_tokens = 4000;
  prompt_bound(setup, csv, png);
  return 0;
}
