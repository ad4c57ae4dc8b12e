#include "runtime/hiva/environment/test_run_reading.hpp"

#include <string_view>

#include "runtime/core/bounded_json.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/hiva/environment/test_program.hpp"

namespace kaisha::hiva {

namespace {

std::string str(const json& v, const char* key) {
  auto it = v.find(key);
  return it != v.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t count(const json& v, const char* key) {
  auto it = v.find(key);
  return it != v.end() && it->is_number_integer() && it->get<int64_t>() > 0 ? it->get<int64_t>() : 0;
}

struct Report {
  std::string last_started;  // the test running when the output ended
  json result;               // the result object, or null when none came
};

Report read_report(std::string_view out) {
  Report r;
  for (size_t start = 0; start < out.size();) {
    size_t end = out.find('\n', start);
    if (end == std::string_view::npos) end = out.size();
    std::string_view line = out.substr(start, end - start);
    start = end + 1;
    if (line.substr(0, kTestLinePrefix.size()) != kTestLinePrefix) continue;
    json v = parse_json_or_discarded(line.substr(kTestLinePrefix.size()));
    if (!v.is_object()) continue;
    std::string event = str(v, "event");
    if (event == "start") r.last_started = str(v, "test");
    if (event == "result") r.result = std::move(v);
  }
  return r;
}

std::string seconds(int64_t ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms / 1000) + "." + std::to_string((ms % 1000) / 100) + " s";
}

std::string running(const Report& r) {
  if (r.last_started.empty()) return "";
  if (r.last_started == "(the program itself)") return " It was still running the program itself, before any test.";
  return " It was still running the test: " + r.last_started;
}

std::string indented(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

EnvironmentFeedback done(std::string text, std::optional<bool> success, std::optional<double> score) {
  return EnvironmentFeedback{utf8::shorten(utf8::repair(text), kMaxFeedbackBytes), success, score};
}

EnvironmentFeedback stopped_early(const json& error, const std::string& output) {
  std::string stage = str(error, "stage"), message = str(error, "message"), trace = str(error, "traceback");
  std::string text;
  if (stage == "program")
    text = "The program failed before any test ran: " + message;
  else if (stage == "tests")
    text = "The tests could not run: " + message;
  else
    text = "The test harness failed: " + message;
  if (!trace.empty()) text += "\n" + indented(trace);
  if (!output.empty()) text += "\nThe program printed:\n" + indented(utf8::shorten(output, 500));
  bool task_at_fault = str(error, "blame") == "task" || stage == "harness";
  return done(text, task_at_fault ? std::nullopt : std::optional<bool>(false),
              task_at_fault ? std::nullopt : std::optional<double>(0.0));
}

}  // namespace

EnvironmentFeedback read_test_run(const TestRun& run) {
  Report report = read_report(run.stdout_data);
  if (run.stopped_by) return done("The program was stopped: " + *run.stopped_by + "." + running(report), false, 0.0);
  if (run.timed_out)
    return done("The program did not finish within " + seconds(run.wall_timeout_ms) + "." + running(report), false,
                0.0);
  const json& result = report.result;
  if (!result.is_object()) {
    std::string how = run.signal ? "was killed by signal " + std::to_string(run.signal)
                                 : "exited with status " + std::to_string(run.exit_code);
    std::string text = "The test program " + how + " before reporting its results." + running(report);
    std::string err = utf8::tail(utf8::repair(run.stderr_data), 800);
    if (!err.empty()) text += "\nIts error output ends with:\n" + indented(err);
    return done(text, false, 0.0);
  }
  std::string output = str(result, "output");
  if (result.contains("error") && result["error"].is_object()) return stopped_early(result["error"], output);

  int64_t passed = count(result, "passed"), failed = count(result, "failed");
  int64_t total = passed + failed;
  double score = total > 0 ? static_cast<double>(passed) / static_cast<double>(total) : 0.0;
  if (total == 0) return done("No test ran.", std::nullopt, std::nullopt);  // the harness reports this as an error
  if (failed == 0) return done("All " + std::to_string(total) + " tests passed.", true, score);

  std::string text = std::to_string(failed) + " of " + std::to_string(total) + " tests failed.";
  const json& failures =
      result.contains("failures") && result["failures"].is_array() ? result["failures"] : json::array();
  for (const json& f : failures) {
    if (!f.is_object()) continue;
    text += "\nFailed: " + str(f, "test") + "\n" + indented(str(f, "message"));
    if (std::string trace = str(f, "traceback"); !trace.empty()) text += "\n" + indented(trace);
  }
  if (static_cast<int64_t>(failures.size()) < failed)
    text += "\n(" + std::to_string(failed - static_cast<int64_t>(failures.size())) + " more failed)";
  if (!output.empty()) text += "\nThe program printed:\n" + indented(utf8::shorten(output, 500));
  return done(text, false, score);
}

}  // namespace kaisha::hiva
