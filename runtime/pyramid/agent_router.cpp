#include "runtime/pyramid/agent_router.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/prompt/json_extract.hpp"

namespace kaisha::pyramid {
namespace {

double cosine(memory::Vector a, memory::Vector b) {
  memory::normalize(a);
  memory::normalize(b);
  return memory::dot(a, b);
}

}  // namespace

const char* name_of(RouteMethod m) {
  switch (m) {
    case RouteMethod::model:
      return "model";
    case RouteMethod::both:
      return "both";
    default:
      return "embedding";
  }
}

const std::vector<std::string>& route_method_names() {
  static const std::vector<std::string> names{"embedding", "model", "both"};
  return names;
}

std::optional<RouteMethod> route_method_named(const std::string& name) {
  if (name == "embedding") return RouteMethod::embedding;
  if (name == "model") return RouteMethod::model;
  if (name == "both") return RouteMethod::both;
  return std::nullopt;
}

json RouteDecision::to_json() const {
  json s = json::array();
  for (const auto& [name, score] : scores) s.push_back({{"agent", name}, {"score", score}});
  json j{{"agent", agent}, {"score", score}, {"new_task", new_task}, {"scores", s}, {"method", method}};
  if (!fallback.empty()) j["fallback"] = fallback;
  return j;
}

std::string AgentRouter::description_text(const AgentDefinition& agent) {
  return agent.responsibility.empty() ? agent.description : agent.description + "\n" + agent.responsibility;
}

Result<AgentRouter> AgentRouter::create(const AgentLibrary& library, std::map<std::string, memory::Vector> descriptions,
                                        double threshold, double tie_tolerance) {
  AgentRouter r;
  r.threshold_ = threshold;
  r.tie_tolerance_ = tie_tolerance;
  for (const auto& a : library.agents()) {
    if (a.level < 1) continue;
    auto v = descriptions.find(a.name);
    if (v == descriptions.end()) return Error{"router", "no embedding of agent '" + a.name + "'s description"};
    r.candidates_.push_back({a.name, a.level, description_text(a), std::move(v->second)});
  }
  const auto roots = library.shape().roots;
  if (roots.empty()) return Error{"router", "the library has no agent of level 1 or more to route to"};
  r.top_ = roots.front();
  return r;
}

std::map<std::string, double> AgentRouter::routing_quality(const AgentLibrary& library, const QualityScores& scores) {
  std::map<std::string, double> out;
  for (const auto& a : library.agents()) {
    if (a.level < 1) continue;
    if (a.candidates.empty()) {
      out[a.name] = scores.of(a.name);
      continue;
    }
    double best = 0;
    for (size_t i = 0; i < a.candidates.size(); ++i)
      best = i == 0 ? scores.of(a.name + "@" + a.candidates[i])
                    : std::max(best, scores.of(a.name + "@" + a.candidates[i]));
    out[a.name] = best;
  }
  return out;
}

std::map<std::string, double> AgentRouter::similarities(const memory::Vector& query) const {
  std::map<std::string, double> out;
  for (const auto& c : candidates_) out[c.name] = cosine(query, c.vector);
  return out;
}

RouteDecision AgentRouter::route(const memory::Vector& query, const std::map<std::string, double>& quality) const {
  return decide(similarities(query), "embedding", quality);
}

RouteDecision AgentRouter::decide(const std::map<std::string, double>& scores, const std::string& method,
                                  const std::map<std::string, double>& quality) const {
  struct Scored {
    const Candidate* c;
    double score;
    double q;
  };
  std::vector<Scored> scored;
  for (const auto& c : candidates_) {
    auto q = quality.find(c.name);
    auto s = scores.find(c.name);
    scored.push_back({&c, s == scores.end() ? 0.0 : s->second, q == quality.end() ? 0.0 : q->second});
  }
  // The listing: by score, then as the tie rule orders.
  auto before = [](const Scored& x, const Scored& y) {
    if (x.q != y.q) return x.q > y.q;
    if (x.c->level != y.c->level) return x.c->level > y.c->level;
    return x.c->name < y.c->name;
  };
  std::sort(scored.begin(), scored.end(), [&](const Scored& x, const Scored& y) {
    if (x.score != y.score) return x.score > y.score;
    return before(x, y);
  });
  // The winner: of the scores within the tolerance of the best, the tie rule's first.
  const double best = scored.empty() ? 0 : scored.front().score;
  if (!scored.empty()) {
    auto winner = scored.begin();
    for (auto it = scored.begin(); it != scored.end() && it->score >= best - tie_tolerance_; ++it)
      if (before(*it, *winner)) winner = it;
    std::rotate(scored.begin(), winner, winner + 1);
  }
  RouteDecision d;
  d.method = method;
  for (const auto& s : scored) d.scores.emplace_back(s.c->name, s.score);
  if (scored.empty() || best < threshold_) {
    d.agent = top_;
    d.new_task = true;
    d.score = best;
    return d;
  }
  d.agent = scored.front().c->name;
  d.score = scored.front().score;
  return d;
}

RouteDecision AgentRouter::rescore(const RouteDecision& by_embedding, const std::map<std::string, double>& by_model,
                                   RouteMethod method, const std::map<std::string, double>& quality) const {
  if (method == RouteMethod::embedding) return by_embedding;
  std::map<std::string, double> scores;
  for (const auto& c : candidates_) {
    auto m = by_model.find(c.name);
    const double model = m == by_model.end() ? 0.0 : m->second;
    if (method == RouteMethod::model) {
      scores[c.name] = model;
      continue;
    }
    double embedding = 0;
    for (const auto& [name, s] : by_embedding.scores)
      if (name == c.name) embedding = s;
    scores[c.name] = (embedding + model) / 2;
  }
  return decide(scores, name_of(method), quality);
}

std::string AgentRouter::candidates_text() const {
  std::string out;
  for (const auto& c : candidates_) {
    std::string text = c.text;
    std::replace(text.begin(), text.end(), '\n', ' ');
    out += "- " + c.name + " (level " + std::to_string(c.level) + "): " + text + "\n";
  }
  return out;
}

Result<std::map<std::string, double>> AgentRouter::read_model_scores(std::string_view answer) const {
  auto j = planning::extract_json(answer);
  if (!j.ok()) return j.error();
  auto s = j->find("scores");
  if (s == j->end() || !s->is_object())
    return Error{"router", "the answer has no \"scores\" object (expected {\"scores\": {\"<agent>\": <0..1>}})"};
  std::map<std::string, double> out;
  for (const auto& item : s->items()) {
    const std::string& name = item.key();
    const json& v = item.value();
    const bool known =
        std::any_of(candidates_.begin(), candidates_.end(), [&](const Candidate& c) { return c.name == name; });
    if (!known) return Error{"router", "scores." + name + ": no such agent to route to"};
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
      return Error{"router", "scores." + name + ": expected a number between 0 and 1, got " + v.dump()};
    out[name] = v.get<double>();
  }
  if (out.empty()) return Error{"router", "the answer scores no agent"};
  return out;
}

}  // namespace kaisha::pyramid
