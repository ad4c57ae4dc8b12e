#include "runtime/pyramid/loop_texts.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "runtime/core/data_paths.hpp"

namespace kaisha::pyramid {
namespace {

std::string fill(const planning::PromptTemplate& t, const std::map<std::string, std::string>& values) {
  return t.render(values).value();  // checked at load: every placeholder has a value
}

}  // namespace

Result<LoopTexts> LoopTexts::load(const std::string& prompts_dir) {
  const std::string dir = (prompts_dir.empty() ? data_file("prompts") : prompts_dir) + "/pyramid/";
  auto nudge = planning::PromptTemplate::load_exactly(dir + "nudge.md", {"left"});
  if (!nudge.ok()) return nudge.error();
  auto retry = planning::PromptTemplate::load_exactly(dir + "final_output_retry.md", {"error", "left"});
  if (!retry.ok()) return retry.error();
  auto request = planning::PromptTemplate::load_exactly(dir + "judge_request.md", {"instruction", "agent", "result"});
  if (!request.ok()) return request.error();
  auto rejection = planning::PromptTemplate::load_exactly(dir + "judge_rejection.md", {"verdict", "left"});
  if (!rejection.ok()) return rejection.error();
  auto compress = planning::PromptTemplate::load_exactly(dir + "compress.md", {"conversation"});
  if (!compress.ok()) return compress.error();
  auto route = planning::PromptTemplate::load_exactly(dir + "route.md", {"agents", "task"});
  if (!route.ok()) return route.error();
  return LoopTexts(std::move(nudge).value(), std::move(retry).value(), std::move(request).value(),
                   std::move(rejection).value(), std::move(compress).value(), std::move(route).value());
}

std::string LoopTexts::nudge(int left) const { return fill(nudge_, {{"left", std::to_string(left)}}); }

std::string LoopTexts::final_output_retry(const std::string& error, int left) const {
  return fill(retry_, {{"error", error}, {"left", std::to_string(left)}});
}

std::string LoopTexts::judge_request(const std::string& instruction, const std::string& agent,
                                     const std::string& result) const {
  return fill(request_, {{"instruction", instruction}, {"agent", agent}, {"result", result}});
}

std::string LoopTexts::judge_rejection(const std::string& verdict, int left) const {
  return fill(rejection_, {{"verdict", verdict}, {"left", std::to_string(left)}});
}

std::string LoopTexts::compress(const std::string& conversation) const {
  return fill(compress_, {{"conversation", conversation}});
}

std::string LoopTexts::route(const std::string& agents, const std::string& task) const {
  return fill(route_, {{"agents", agents}, {"task", task}});
}

}  // namespace kaisha::pyramid
