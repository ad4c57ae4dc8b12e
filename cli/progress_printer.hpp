// Prints a running company's progress events: a readable transcript on
// stderr (HASHIRU's "Invoking `Tool` with {...}" / "Tool responded with
// {...}" lines, hires, asks, fires, tokens, $ and resource use), or one JSON
// object per line on stdout with --json. Thread-safe.
#pragma once

#include <cstdio>
#include <mutex>

#include "runtime/company/progress_sink.hpp"

namespace kaisha::cli {

class ProgressPrinter : public company::ProgressSink {
 public:
  ProgressPrinter(bool json_lines, bool quiet) : json_(json_lines), quiet_(quiet) {}
  void emit(const msg::ProgressEvent& e) override;

 private:
  std::mutex mu_;
  bool json_;
  bool quiet_;
};

// Readable text of a GetBudget view, e.g. "resource 30/100 (70 left) | expense $0.0012/$10".
std::string budget_line(const json& budget);

}  // namespace kaisha::cli
