#include "runtime/telemetry/metrics_registry.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

namespace kaisha::telemetry {

void Counter::add(double v) {
  if (!(v > 0)) return;  // also drops NaN
  value_.fetch_add(v, std::memory_order_relaxed);
}

void Gauge::add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::cumulative_counts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    out[i] = total;
  }
  return out;
}

std::vector<double> seconds_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};
}

const char* to_string(MetricType t) {
  switch (t) {
    case MetricType::counter:
      return "counter";
    case MetricType::gauge:
      return "gauge";
    case MetricType::histogram:
      return "histogram";
  }
  return "untyped";
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escape_help(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // The shortest text that reads back as the same double.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

namespace {

bool valid_name(std::string_view n) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// `name{a="x",b="y"}`, or `name` when there are no labels; `extra` (le="…")
// goes last.
std::string series(const std::string& name, const std::vector<std::string>& labels,
                   const std::vector<std::string>& values, const std::string& extra = {}) {
  std::string out = name;
  if (labels.empty() && extra.empty()) return out;
  out += '{';
  bool first = true;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (!first) out += ',';
    first = false;
    out += labels[i] + "=\"" + escape_label_value(i < values.size() ? values[i] : "") + '"';
  }
  if (!extra.empty()) {
    if (!first) out += ',';
    out += extra;
  }
  out += '}';
  return out;
}

}  // namespace

struct MetricsRegistry::Entry {
  std::string name, help;
  MetricType type;
  std::vector<std::string> labels;
  // Writes the family's own children's sample lines (none for a collector-only entry).
  std::function<void(std::string&)> render_children;
  std::shared_ptr<void> family;  // Family<T>, owned here
  std::mutex collectors_mu;
  std::map<uint64_t, Collect> collectors;
};

namespace {

// The sample lines of a counter's or a gauge's children.
template <class Child>
void render_values(const std::string& name, const std::vector<std::string>& labels,
                   const std::map<std::vector<std::string>, std::unique_ptr<Child>>& children, std::string& out) {
  for (const auto& [values, c] : children) out += series(name, labels, values) + ' ' + format_value(c->value()) + '\n';
}

// A histogram's: cumulative buckets, +Inf, sum and count per child.
void render_histograms(const std::string& name, const std::vector<std::string>& labels,
                       const std::map<std::vector<std::string>, std::unique_ptr<Histogram>>& children,
                       std::string& out) {
  for (const auto& [values, h] : children) {
    const auto counts = h->cumulative_counts();
    for (size_t i = 0; i < h->bounds().size(); ++i)
      out += series(name + "_bucket", labels, values, "le=\"" + format_value(h->bounds()[i]) + '"') + ' ' +
             std::to_string(counts[i]) + '\n';
    out += series(name + "_bucket", labels, values, "le=\"+Inf\"") + ' ' + std::to_string(counts.back()) + '\n';
    out += series(name + "_sum", labels, values) + ' ' + format_value(h->sum()) + '\n';
    out += series(name + "_count", labels, values) + ' ' + std::to_string(counts.back()) + '\n';
  }
}

}  // namespace

std::shared_ptr<MetricsRegistry::Entry> MetricsRegistry::entry_locked(const std::string& name, const std::string& help,
                                                                      MetricType type,
                                                                      std::vector<std::string> labels) {
  if (!valid_name(name)) throw std::logic_error("metric name '" + name + "' is not a Prometheus name");
  auto& e = families_[name];
  if (e && e->type != type) throw std::logic_error("metric '" + name + "' declared twice with two types");
  if (!e) {
    e = std::make_shared<Entry>();
    e->name = name;
    e->help = help;
    e->type = type;
    e->labels = std::move(labels);
  }
  return e;
}

template <class Child>
Family<Child>& MetricsRegistry::declare(const std::string& name, const std::string& help, MetricType type,
                                        std::vector<std::string> labels, size_t max_children,
                                        std::function<std::unique_ptr<Child>()> make) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::shared_ptr<Entry> e = entry_locked(name, help, type, labels);
  if (e->family) return *std::static_pointer_cast<Family<Child>>(e->family);
  std::shared_ptr<Family<Child>> f(new Family<Child>(name, help, std::move(labels), max_children, std::move(make)));
  e->family = f;
  Family<Child>* raw = f.get();
  e->render_children = [raw](std::string& out) {
    std::lock_guard<std::mutex> l(raw->mu_);
    if constexpr (std::is_same_v<Child, Histogram>)
      render_histograms(raw->name_, raw->labels_, raw->children_, out);
    else
      render_values(raw->name_, raw->labels_, raw->children_, out);
  };
  return *f;
}

Family<Counter>& MetricsRegistry::counter(const std::string& name, const std::string& help,
                                          std::vector<std::string> labels, size_t max_children) {
  return declare<Counter>(name, help, MetricType::counter, std::move(labels), max_children,
                          [] { return std::make_unique<Counter>(); });
}

Family<Gauge>& MetricsRegistry::gauge(const std::string& name, const std::string& help, std::vector<std::string> labels,
                                      size_t max_children) {
  return declare<Gauge>(name, help, MetricType::gauge, std::move(labels), max_children,
                        [] { return std::make_unique<Gauge>(); });
}

Family<Histogram>& MetricsRegistry::histogram(const std::string& name, const std::string& help,
                                              std::vector<std::string> labels, std::vector<double> bounds,
                                              size_t max_children) {
  return declare<Histogram>(name, help, MetricType::histogram, std::move(labels), max_children,
                            [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); });
}

std::shared_ptr<void> MetricsRegistry::collector(const std::string& name, const std::string& help, MetricType type,
                                                 std::vector<std::string> labels, Collect collect) {
  if (type == MetricType::histogram) throw std::logic_error("a collector reports counters or gauges");
  std::shared_ptr<Entry> e;
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e = entry_locked(name, help, type, std::move(labels));
    id = ++next_collector_;
  }
  {
    std::lock_guard<std::mutex> lock(e->collectors_mu);
    e->collectors.emplace(id, std::move(collect));
  }
  std::weak_ptr<Entry> weak = e;
  return std::shared_ptr<void>(nullptr, [weak, id](void*) {
    if (auto entry = weak.lock()) {
      std::lock_guard<std::mutex> lock(entry->collectors_mu);
      entry->collectors.erase(id);
    }
  });
}

std::string MetricsRegistry::render() const {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [_, e] : families_) entries.push_back(e);
  }
  std::string out;
  for (const auto& e : entries) {
    std::string samples;
    if (e->render_children) e->render_children(samples);
    {
      std::lock_guard<std::mutex> lock(e->collectors_mu);
      for (const auto& [_, collect] : e->collectors) {
        std::vector<Sample> got;
        try {
          got = collect();
        } catch (...) {
          continue;  // a collector that fails reports nothing this scrape
        }
        for (const auto& s : got)
          samples += series(e->name, e->labels, s.label_values) + ' ' + format_value(s.value) + '\n';
      }
    }
    if (samples.empty()) continue;
    out += "# HELP " + e->name + ' ' + escape_help(e->help) + '\n';
    out += "# TYPE " + e->name + ' ' + to_string(e->type) + '\n';
    out += samples;
  }
  return out;
}

MetricsRegistry& default_registry() {
  static MetricsRegistry* registry = new MetricsRegistry();  // never destroyed: used until exit
  return *registry;
}

}  // namespace kaisha::telemetry
