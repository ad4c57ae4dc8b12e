// Streams a task's events as they happen: an EventSink that prints each
// one (milliseconds since the start, kind, agent, text) while the task runs
// on another thread, then the answer and the dollars spent.
//   stream_events config.yaml
#include <kaisha/company.hpp>
#include <kaisha/events.hpp>

#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

class Printer : public kaisha::EventSink {
 public:
  // Called on the company's threads: print under a lock and return.
  void emit(const kaisha::Event& e) override {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
    std::lock_guard<std::mutex> lock(mu_);
    std::cout << "+" << ms << "ms " << kaisha::event_kind_name(e.kind) << " [" << e.agent << "] "
              << e.text.substr(0, 60) << std::endl;
  }

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: stream_events CONFIG.yaml\n";
    return 2;
  }
  kaisha::CompanyOptions options;
  options.config_file = argv[1];
  options.events = std::make_shared<Printer>();
  auto company = kaisha::Company::start(std::move(options));
  if (!company) {
    std::cerr << company.error().message << "\n";
    return 1;
  }
  kaisha::TaskResult result;
  std::thread worker([&] { result = (*company)->run("Have a poem written about rivers."); });
  worker.join();  // the events were printed while it ran
  std::cout << "answer: " << result.answer << "\n";
  std::cout << "spent: $" << result.expense << " on " << result.tokens_in + result.tokens_out << " tokens\n";
  return result.ok ? 0 : 1;
}
