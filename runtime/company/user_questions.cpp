#include "runtime/company/user_questions.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::company {

Result<std::shared_ptr<UserQuestions>> UserQuestions::create(std::chrono::milliseconds timeout, Hooks hooks) {
  auto specs = load_tool_specs(data_file("data/tools/ask_user_tool.json"));
  if (!specs.ok()) return specs.error();
  json texts;
  if (hooks.raise) {
    auto budget = load_tool_specs(data_file("data/tools/budget_request_tool.json"));
    if (!budget.ok()) return budget.error();
    specs->insert(specs->end(), budget->begin(), budget->end());
    const std::string path = data_file("data/tools/budget_request.json");
    auto text = read_text_file(path);
    if (!text.ok()) return text.error();
    texts = json::parse(*text, nullptr, false);
    for (const char* key : {"question", "raised", "declined", "raise_failed"})
      if (!texts.is_object() || !texts.contains(key) || !texts[key].is_string())
        return Error{"data", path + ": missing text '" + key + "'"};
    if (!texts.contains("yes") || !texts["yes"].is_array())
      return Error{"data", path + ": 'yes' must be a list of the answers that authorise a raise"};
  }
  return std::make_shared<UserQuestions>(std::move(specs).value(), std::move(texts), timeout, std::move(hooks));
}

UserQuestions::UserQuestions(std::vector<llm::ToolSpec> specs, json budget_texts, std::chrono::milliseconds timeout,
                             Hooks hooks)
    : specs_(std::move(specs)), budget_texts_(std::move(budget_texts)), timeout_(timeout), hooks_(std::move(hooks)) {
  timer_ = std::thread([this] { run_timer(); });
}

UserQuestions::~UserQuestions() { stop(); }

void UserQuestions::call(const std::string& name, const json& args, const ToolCallContext& ctx,
                         std::function<void(ToolResult)> done) {
  if (name == "RequestBudgetIncrease" && hooks_.raise) return request_budget(args, ctx, std::move(done));
  if (name != "AskUser") return done(ToolResult::error("unknown tool '" + name + "'"));
  const std::string question = utf8::repair(args.value("question", ""));
  if (question.find_first_not_of(" \t\r\n") == std::string::npos)
    return done(ToolResult::error("AskUser: 'question' is empty; say what you need to know"));
  ask(name, ctx.task_id, question, std::move(done));
}

void UserQuestions::ask(const std::string& tool, const std::string& task_id, const std::string& question,
                        std::function<void(ToolResult)> done) {
  if (task_id.empty()) return done(ToolResult::error(tool + ": there is no user to ask outside a task"));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return done(ToolResult::error(tool + ": the company is stopping"));
    if (pending_.count(task_id))
      return done(ToolResult::error(tool + ": a question to the user is already waiting for its answer"));
    const int64_t deadline = timeout_.count() > 0 ? steady_ms() + timeout_.count() : 0;  // 0: no deadline
    pending_[task_id] = Pending{question, std::move(done), deadline};
  }
  changed_.notify_all();
  if (hooks_.asked) hooks_.asked(task_id, question);
}

namespace {

std::string replace_all(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

}  // namespace

void UserQuestions::request_budget(const json& args, const ToolCallContext& ctx, std::function<void(ToolResult)> done) {
  const std::string which = args.value("budget", "");
  if (which != "expense" && which != "resource")
    return done(ToolResult::error("RequestBudgetIncrease: 'budget' must be \"expense\" or \"resource\""));
  const auto amount_it = args.find("amount");
  const double amount = amount_it != args.end() && amount_it->is_number() ? amount_it->get<double>() : 0.0;
  if (!(amount > 0) || !std::isfinite(amount))
    return done(ToolResult::error("RequestBudgetIncrease: 'amount' must be a number above 0"));
  const std::string reason = utf8::repair(args.value("reason", ""));
  if (reason.find_first_not_of(" \t\r\n") == std::string::npos)
    return done(ToolResult::error("RequestBudgetIncrease: 'reason' is empty; tell the user what the budget is for"));
  char buf[64];
  if (which == "expense")
    std::snprintf(buf, sizeof buf, "$%.2f", amount);
  else
    std::snprintf(buf, sizeof buf, "%g points", amount);
  const std::string shown = buf;
  auto fill = [which, shown](std::string text) {
    return replace_all(replace_all(std::move(text), "{budget}", which), "{amount}", shown);
  };
  const std::string question = replace_all(fill(budget_texts_.value("question", "")), "{reason}", reason);
  // The answer decides; the raise goes through the hook, so the ledger and
  // the journal record it as every raise is recorded.
  auto decide = [raise = hooks_.raise, texts = budget_texts_, fill, which, amount,
                 done = std::move(done)](ToolResult r) {
    if (!r.ok) return done(std::move(r));  // no answer in time, withdrawn, stopped
    const std::string answer = r.output.is_object() ? r.output.value("answer", "") : "";
    if (!authorises(answer, texts.value("yes", json::array())))
      return done(ToolResult::success(replace_all(fill(texts.value("declined", "")), "{answer}", answer),
                                      json{{"authorised", false}, {"answer", answer}}));
    if (Status s = raise(which, amount); !s.ok())
      return done(ToolResult::error(replace_all(fill(texts.value("raise_failed", "")), "{why}", s.error().message)));
    done(ToolResult::success(fill(texts.value("raised", "")),
                             json{{"authorised", true}, {"budget", which}, {"amount", amount}}));
  };
  ask("RequestBudgetIncrease", ctx.task_id, question, std::move(decide));
}

bool UserQuestions::authorises(const std::string& answer, const json& yes_words) {
  std::string a = answer;
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!a.empty() && is_space(a.back())) a.pop_back();
  size_t first = 0;
  while (first < a.size() && is_space(a[first])) ++first;
  a.erase(0, first);
  // Final punctuation, ASCII and the CJK full stop and marks.
  for (bool cut = true; cut && !a.empty();) {
    cut = false;
    for (const char* p : {".", "!", "?", "。", "！", "？", "、", "，"}) {
      const std::string s = p;
      if (a.size() >= s.size() && a.compare(a.size() - s.size(), s.size(), s) == 0) {
        a.erase(a.size() - s.size());
        while (!a.empty() && is_space(a.back())) a.pop_back();
        cut = true;
      }
    }
  }
  a = ascii_lower(a);
  if (!yes_words.is_array()) return false;
  for (const auto& w : yes_words)
    if (w.is_string() && w.get_ref<const std::string&>() == a) return true;
  return false;
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
      // The hook first: it ends the task (serve fails it), so that the
      // error answer below cannot let the task's model turn on and finish
      // it before the hook's cancel arrives.
      if (hooks_.timed_out) hooks_.timed_out(task);
      p.done(ToolResult::error(why));
    }
    lock.lock();
  }
}

}  // namespace kaisha::company
