#include "runtime/eval/model_alone_driver.hpp"

#include <utility>

namespace kaisha::eval {

ModelAloneDriver::ModelAloneDriver(std::string input, std::string system_prompt, int64_t max_tokens)
    : input_(std::move(input)), system_prompt_(std::move(system_prompt)), max_tokens_(max_tokens) {}

driver::Effects ModelAloneDriver::start() {
  driver::CallModel call;
  call.id = 1;
  call.purpose = "answer";
  if (!system_prompt_.empty()) {
    llm::ChatMessage system;
    system.role = llm::Role::system;
    system.content = system_prompt_;
    call.request.messages.push_back(std::move(system));
  }
  llm::ChatMessage user;
  user.role = llm::Role::user;
  user.content = input_;
  call.request.messages.push_back(std::move(user));
  if (max_tokens_ > 0) call.request.max_tokens = max_tokens_;
  return {std::move(call)};
}

driver::Effects ModelAloneDriver::on(const driver::Outcome& outcome) {
  const auto* answered = std::get_if<driver::ModelAnswered>(&outcome);
  if (finished_ || !answered || answered->id != 1) return {};
  finished_ = true;
  if (!answered->ok) return {driver::Finish{false, "the model failed: " + answered->error}};
  return {driver::Finish{true, answered->response.message.content, json{{"strategy", kModelAloneStrategy}}}};
}

driver::Effects ModelAloneDriver::cancel(const std::string& why) {
  if (finished_) return {};
  finished_ = true;
  return {driver::Finish{false, why}};
}

}  // namespace kaisha::eval
