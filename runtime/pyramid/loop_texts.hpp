// LoopTexts: what the pyramid says to an agent's model besides its context
// (prompts/pyramid/): the reminder when a turn calls no tool, the answer to
// an unacceptable final_output, the judge's request, the rejection handed
// back to the audited agent, the request that compresses a conversation and
// the router's request to a model. Data files, so wording changes need no
// build; a missing or broken file is an error naming it.
#pragma once

#include <string>

#include "runtime/core/result.hpp"
#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::pyramid {

class LoopTexts {
 public:
  // Reads the files from `prompts_dir` (default: the install's prompts/).
  static Result<LoopTexts> load(const std::string& prompts_dir = "");

  std::string nudge(int left) const;
  std::string final_output_retry(const std::string& error, int left) const;
  std::string judge_request(const std::string& instruction, const std::string& agent, const std::string& result) const;
  std::string judge_rejection(const std::string& verdict, int left) const;
  // The request that summarises a call's earlier conversation (C_ENV compression).
  std::string compress(const std::string& conversation) const;
  // The request that has a model score every candidate agent for a task
  // (pyramid.router: model or both).
  std::string route(const std::string& agents, const std::string& task) const;

 private:
  LoopTexts(planning::PromptTemplate nudge, planning::PromptTemplate retry, planning::PromptTemplate request,
            planning::PromptTemplate rejection, planning::PromptTemplate compress, planning::PromptTemplate route)
      : nudge_(std::move(nudge)),
        retry_(std::move(retry)),
        request_(std::move(request)),
        rejection_(std::move(rejection)),
        compress_(std::move(compress)),
        route_(std::move(route)) {}

  planning::PromptTemplate nudge_, retry_, request_, rejection_, compress_, route_;
};

}  // namespace kaisha::pyramid
