// MetricsRegistry holds a process's metrics and writes them in the
// Prometheus text exposition format (version 0.0.4), the format `/metrics`
// serves.
//
// A family is declared once (name, help, label names) and hands out one
// child per set of label values. Children live as long as the registry and
// never move, so a hot path looks its child up once and then only touches
// atomics: Counter::add, Gauge::set and Histogram::observe never lock and
// never allocate.
//
// Label values can come from outside (model names from the config, agent
// names a model chose, message types a peer sent), so a family holds at most
// `max_children` children; values beyond that are counted under the one
// child whose every label is "other", and the exposition stays bounded.
//
// Values read at scrape time (ledger levels, the journal's backlog, cluster
// members) come from collectors: callbacks the registry runs while it
// renders. A collector is registered for as long as its handle lives, so an
// object that goes away takes its collector with it.
//
// Thread-safe: every method may be called from any thread. A collector runs
// on the rendering thread and must not call back into the registry.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kaisha::telemetry {

class Counter {
 public:
  // Adds `v` (>= 0; a negative amount is ignored: a counter only goes up).
  void add(double v = 1);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double v);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds`: the buckets' upper bounds, ascending; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  // Cumulative count per bound (the last entry is +Inf: every observation).
  std::vector<uint64_t> cumulative_counts() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bound, +Inf last; not cumulative
  std::atomic<double> sum_{0};
  std::atomic<uint64_t> count_{0};
};

// Upper bounds for durations in seconds, 1 ms to 2 minutes: model calls take
// seconds, journal commits milliseconds.
std::vector<double> seconds_buckets();

enum class MetricType { counter, gauge, histogram };
const char* to_string(MetricType t);

// One sample a collector reports at scrape time.
struct Sample {
  std::vector<std::string> label_values;  // in the family's label order
  double value = 0;
};

class MetricsRegistry;

// A family of children of one type, keyed by their label values.
template <class Child>
class Family {
 public:
  // The child for `label_values` (as many as the family has label names;
  // missing ones are "", extra ones ignored), created on first use.
  Child& with(const std::vector<std::string>& label_values);
  Child& with() { return with(std::vector<std::string>{}); }

 private:
  friend class MetricsRegistry;
  Family(std::string name, std::string help, std::vector<std::string> labels, size_t max_children,
         std::function<std::unique_ptr<Child>()> make)
      : name_(std::move(name)),
        help_(std::move(help)),
        labels_(std::move(labels)),
        max_children_(max_children),
        make_(std::move(make)) {}

  std::string name_, help_;
  std::vector<std::string> labels_;
  size_t max_children_;
  std::function<std::unique_ptr<Child>()> make_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Child>> children_;
};

class MetricsRegistry {
 public:
  static constexpr size_t kDefaultMaxChildren = 500;

  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Declares a family, or returns the one already declared under `name`
  // (then `help` and `labels` are those of the first declaration). Names
  // follow Prometheus's rules ([a-zA-Z_:][a-zA-Z0-9_:]*); a family of the
  // same name and another type is a programming error (std::logic_error).
  Family<Counter>& counter(const std::string& name, const std::string& help, std::vector<std::string> labels = {},
                           size_t max_children = kDefaultMaxChildren);
  Family<Gauge>& gauge(const std::string& name, const std::string& help, std::vector<std::string> labels = {},
                       size_t max_children = kDefaultMaxChildren);
  Family<Histogram>& histogram(const std::string& name, const std::string& help, std::vector<std::string> labels,
                               std::vector<double> bounds, size_t max_children = kDefaultMaxChildren);

  // A family whose samples `collect` reports at each scrape (a gauge, or a
  // counter the caller keeps itself). Unregistered when the handle is
  // destroyed; two live collectors of one name both contribute samples.
  using Collect = std::function<std::vector<Sample>()>;
  std::shared_ptr<void> collector(const std::string& name, const std::string& help, MetricType type,
                                  std::vector<std::string> labels, Collect collect);

  // Every family in the text exposition format, sorted by name.
  std::string render() const;

 private:
  struct Entry;
  // The entry named `name`, made with these fields when there is none; a
  // bad name or another type is a logic_error. Called with mu_ held.
  std::shared_ptr<Entry> entry_locked(const std::string& name, const std::string& help, MetricType type,
                                      std::vector<std::string> labels);
  template <class Child>
  Family<Child>& declare(const std::string& name, const std::string& help, MetricType type,
                         std::vector<std::string> labels, size_t max_children,
                         std::function<std::unique_ptr<Child>()> make);
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> families_;
  uint64_t next_collector_ = 0;
};

// The registry kaisha's own metrics live in: one per process.
MetricsRegistry& default_registry();

// Prometheus escaping: label values escape \ " and newline; help text \ and newline.
std::string escape_label_value(std::string_view v);
std::string escape_help(std::string_view v);
// A sample value as Prometheus writes it: integers without a fraction,
// NaN, +Inf and -Inf by name.
std::string format_value(double v);

// ---- template definitions ----

template <class Child>
Child& Family<Child>::with(const std::vector<std::string>& label_values) {
  std::vector<std::string> key(labels_.size());
  for (size_t i = 0; i < key.size() && i < label_values.size(); ++i) key[i] = label_values[i];
  std::lock_guard<std::mutex> lock(mu_);
  auto it = children_.find(key);
  if (it != children_.end()) return *it->second;
  if (children_.size() >= max_children_ && !labels_.empty()) {
    key.assign(labels_.size(), "other");
    it = children_.find(key);
    if (it != children_.end()) return *it->second;
  }
  return *children_.emplace(std::move(key), make_()).first->second;
}

}  // namespace kaisha::telemetry
