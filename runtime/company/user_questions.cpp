#include "runtime/company/user_questions.hpp"

#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::company {

Result<std::shared_ptr<UserQuestions>> UserQuestions::create(std::chrono::milliseconds timeout, Hooks hooks) {
  auto specs = load_tool_specs(data_file("data/tools/ask_user_tool.json"));
  if (!specs.ok()) return specs.error();
  return std::make_shared<UserQuestions>(std::move(specs).value(), timeout, std::move(hooks));
}

UserQuestions::UserQuestions(std::vector<llm::ToolSpec> specs, std::chrono::milliseconds timeout, Hooks hooks)
    : specs_(std::move(specs)), timeout_(timeout), hooks_(std::move(hooks)) {
  timer_ = std::thread([this] { run_timer(); });
}

UserQuestions::~UserQuestions() { stop(); }

void UserQuestions::call(const std::string& name, const json& args, const ToolCallContext& ctx,
                         std::function<void(ToolResult)> done) {
  if (name != "AskUser") return done(ToolResult::error("unknown tool '" + name + "'"));
  const std::string question = utf8::repair(args.value("question", ""));
  if (question.find_first_not_of(" \t\r\n") == std::string::npos)
    return done(ToolResult::error("AskUser: 'question' is empty; say what you need to know"));
  if (ctx.task_id.empty()) return done(ToolResult::error("AskUser: there is no user to ask outside a task"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return done(ToolResult::error("AskUser: the company is stopping"));
    if (pending_.count(ctx.task_id))
      return done(ToolResult::error("AskUser: a question to the user is already waiting for its answer"));
    const int64_t deadline = timeout_.count() > 0 ? steady_ms() + timeout_.count() : 0;
    pending_[ctx.task_id] = Pending{question, std::move(done), deadline};
  }
  changed_.notify_all();
  if (hooks_.asked) hooks_.asked(ctx.task_id, question);
}

std::function<void(ToolResult)> UserQuestions::take(const std::string& task_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(task_id);
  if (it == pending_.end()) return nullptr;
  auto done = std::move(it->second.done);
  pending_.erase(it);
  return done;
}

bool UserQuestions::answer(const std::string& task_id, const std::string& text) {
  auto done = take(task_id);
  if (!done) return false;
  const std::string reply = utf8::repair(text);
  done(ToolResult::success("The user answered: " + reply, json{{"answer", reply}}));
  return true;
}

void UserQuestions::withdraw(const std::string& task_id, const std::string& why) {
  if (auto done = take(task_id)) done(ToolResult::error(why));
}

std::optional<std::string> UserQuestions::question(const std::string& task_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(task_id);
  if (it == pending_.end()) return std::nullopt;
  return it->second.question;
}

void UserQuestions::stop() {
  std::map<std::string, Pending> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    left.swap(pending_);
  }
  changed_.notify_all();
  for (auto& [_, p] : left) p.done(ToolResult::error("the company stopped while the question waited for its answer"));
  // No hook runs after stop(): its owner may be going away.
  std::lock_guard<std::mutex> join(join_mu_);
  if (timer_.joinable() && timer_.get_id() != std::this_thread::get_id()) timer_.join();
}

void UserQuestions::run_timer() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    int64_t next = 0;
    for (const auto& [_, p] : pending_)
      if (p.deadline_ms != 0 && (next == 0 || p.deadline_ms < next)) next = p.deadline_ms;
    if (next == 0) {
      changed_.wait(lock);
      continue;
    }
    const int64_t now = steady_ms();
    if (now < next) {
      changed_.wait_for(lock, std::chrono::milliseconds(next - now));
      continue;
    }
    std::vector<std::pair<std::string, Pending>> due;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.deadline_ms != 0 && it->second.deadline_ms <= now) {
        due.emplace_back(it->first, std::move(it->second));
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    const std::string why = "no answer came from the user within " + std::to_string(timeout_.count() / 1000) + " s";
    for (auto& [task, p] : due) {
      p.done(ToolResult::error(why));
      if (hooks_.timed_out) hooks_.timed_out(task);
    }
    lock.lock();
  }
}

}  // namespace kaisha::company
