#include "runtime/halo/replies/score_reply.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include "runtime/answers/trim.hpp"
#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {
namespace {

// The whole (trimmed) text as a double, or nullopt.
std::optional<double> number_in(std::string_view text) {
  text = answers::trim(text);
  if (text.starts_with('+')) text.remove_prefix(1);  // from_chars takes no '+'
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::string shown(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

Parsed<double> parse_score(std::string_view reply) {
  reply::Problems problems("scorer");
  const std::string key(kScoreKey);
  std::optional<double> score;
  Result<json> object = reply::object(reply, key);
  if (!object) {
    problems.add(object.error().message);
  } else if (auto it = object->find(key); it == object->end()) {
    problems.add(reply::missing(*object, key));
  } else if (it->is_number()) {
    score = it->get<double>();
  } else if (it->is_string()) {
    score = number_in(it->get_ref<const std::string&>());
    if (!score)
      problems.add("\"" + key + "\" is " + reply::in_quotes(it->get_ref<const std::string&>()) + ", not a number");
  } else {
    problems.add("key \"" + key + "\" is " + reply::kind(*it) + ", expected a number in [0, 1]");
  }
  if (score && !std::isfinite(*score)) {
    problems.add("\"" + key + "\" is " + shown(*score) + ", not a finite number");
    score.reset();
  }
  if (!score) {
    problems.add("the score is 0.5");
    return {kDefaultScore, problems.text(), true};
  }
  double x = *score;
  if (x < 0 || x > 1) {
    double clamped = x < 0 ? 0.0 : 1.0;
    problems.add("\"" + key + "\" is " + shown(x) + ", outside [0, 1]; clamped to " + shown(clamped));
    x = clamped;
  }
  x = std::round(x * 10000.0) / 10000.0;
  if (x == 0) x = 0;  // -0 reads as 0 in the journal too
  return {x, problems.text(), false};
}

}  // namespace kaisha::halo
