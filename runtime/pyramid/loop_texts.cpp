#include "runtime/pyramid/loop_texts.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "runtime/core/data_paths.hpp"

namespace kaisha::pyramid {
namespace {

// Loads a template and checks it uses exactly `names`, so rendering it
// later cannot fail.
Result<planning::PromptTemplate> load_checked(const std::string& path, std::set<std::string> names) {
  auto t = planning::PromptTemplate::load(path);
  if (!t.ok()) return t;
  const auto used = t->placeholders();
  const std::set<std::string> have(used.begin(), used.end());
  if (have != names) {
    std::string want;
    for (const auto& n : names) want += (want.empty() ? "" : ", ") + std::string("{{") + n + "}}";
    return Error{"prompt", path + ": must use exactly the placeholders " + want};
  }
  return t;
}

std::string fill(const planning::PromptTemplate& t, const std::map<std::string, std::string>& values) {
  return t.render(values).value();  // checked at load: every placeholder has a value
}

}  // namespace

Result<LoopTexts> LoopTexts::load(const std::string& prompts_dir) {
  const std::string dir = (prompts_dir.empty() ? data_file("prompts") : prompts_dir) + "/pyramid/";
  auto nudge = load_checked(dir + "nudge.md", {"left"});
  if (!nudge.ok()) return nudge.error();
  auto retry = load_checked(dir + "final_output_retry.md", {"error", "left"});
  if (!retry.ok()) return retry.error();
  auto request = load_checked(dir + "judge_request.md", {"instruction", "agent", "result"});
  if (!request.ok()) return request.error();
  auto rejection = load_checked(dir + "judge_rejection.md", {"verdict", "left"});
  if (!rejection.ok()) return rejection.error();
  auto compress = load_checked(dir + "compress.md", {"conversation"});
  if (!compress.ok()) return compress.error();
  auto route = load_checked(dir + "route.md", {"agents", "task"});
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
