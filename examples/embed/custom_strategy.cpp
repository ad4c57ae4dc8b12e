// A strategy of this program, registered from outside kaisha: "drafts" asks
// its writer model for a first draft, then for a better one `rounds - 1`
// times, reports each draft as an event of its own and answers with the
// last. kaisha runs it like its own strategies: it journals every call,
// charges the budget and can resume a task a dead process left.
//   custom_strategy strategy.yaml     (strategy: drafts, and a drafts: section)
#include <kaisha/company.hpp>
#include <kaisha/events.hpp>
#include <kaisha/strategy.hpp>

#include <iostream>

namespace driver = kaisha::driver;

// One task's driver: plain C++, no threads; kaisha calls it one outcome at
// a time and performs the effects it returns.
class DraftsDriver {
 public:
  DraftsDriver(std::string task, int rounds) : task_(std::move(task)), rounds_(rounds) {}

  driver::Effects start() { return {ask("Draft 1 of: " + task_)}; }

  driver::Effects on(const driver::Outcome& outcome) {
    const auto* answer = std::get_if<driver::ModelAnswered>(&outcome);
    if (!answer) return {};
    if (!answer->ok) return {driver::Finish{false, "the writer failed: " + answer->error}};
    const std::string draft = answer->response.message.content;
    driver::Effects out;
    driver::add_strategy_event(out, "drafts", "draft", draft, {{"round", round_}}, /*journaled=*/true);
    if (round_ < rounds_)
      out.push_back(ask("Draft " + std::to_string(round_ + 1) + ", better than: " + draft));
    else
      out.push_back(driver::Finish{true, draft, {{"strategy", "drafts"}, {"rounds", rounds_}}});
    return out;
  }

  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  driver::CallModel ask(std::string prompt) {
    driver::CallModel call;
    call.id = ++round_;
    call.purpose = "draft";
    kaisha::ChatMessage m;
    m.content = std::move(prompt);
    call.request.messages.push_back(std::move(m));
    return call;
  }

  std::string task_;
  int rounds_;
  int round_ = 0;
};

// When a company starts: read the drafts: section, say how tasks run.
kaisha::Result<kaisha::DrivenStrategy> setup(const kaisha::StrategySetup& s) {
  if (!s.section.is_object() || !s.section.contains("model"))
    return kaisha::Error{"config", "drafts.model: the drafts strategy needs a model"};
  const int rounds = s.section.value("rounds", 2);
  if (rounds < 1 || rounds > 5) return kaisha::Error{"config", "drafts.rounds: expected 1 to 5"};
  kaisha::DrivenStrategy d;
  d.agent = "Drafts";
  d.who = "the drafts strategy";
  d.model = s.price(s.section["model"].get<std::string>());
  d.make = [rounds](const kaisha::TaskRequest& task, const kaisha::StateValues&) {
    return kaisha::make_task_driver<DraftsDriver>(task.input, rounds);
  };
  return d;
}

class Printer : public kaisha::EventSink {
 public:
  void emit(const kaisha::Event& e) override {
    if (e.kind == kaisha::EventKind::strategy)
      std::cout << "draft " << e.data.value("round", 0) << ": " << e.text << "\n";
  }
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: custom_strategy STRATEGY.yaml\n";
    return 2;
  }
  kaisha::StrategyInfo info;
  info.name = "drafts";
  info.help = "asks a writer for a draft, then for better ones";
  info.config_section = "drafts";
  info.events = {{"draft", true, "one draft"}};
  if (auto s = kaisha::register_strategy(std::move(info), setup); !s) {
    std::cerr << s.error().message << "\n";
    return 1;
  }
  kaisha::CompanyOptions options;
  options.config_file = argv[1];
  options.events = std::make_shared<Printer>();
  auto company = kaisha::Company::start(std::move(options));
  if (!company) {
    std::cerr << company.error().message << "\n";
    return 1;
  }
  kaisha::TaskResult r = (*company)->run("a sentence about rivers");
  std::cout << (r.ok ? "answer: " + r.answer : "failed: " + r.error) << "\n";
  return r.ok ? 0 : 1;
}
