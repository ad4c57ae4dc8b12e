#include "runtime/pyramid/agent_router.hpp"

#include <algorithm>
#include <cmath>

namespace kaisha::pyramid {
namespace {

double cosine(memory::Vector a, memory::Vector b) {
  memory::normalize(a);
  memory::normalize(b);
  return memory::dot(a, b);
}

}  // namespace

json RouteDecision::to_json() const {
  json s = json::array();
  for (const auto& [name, score] : scores) s.push_back({{"agent", name}, {"score", score}});
  return json{{"agent", agent}, {"score", score}, {"new_task", new_task}, {"scores", s}};
}

std::string AgentRouter::description_text(const AgentDefinition& agent) {
  return agent.responsibility.empty() ? agent.description : agent.description + "\n" + agent.responsibility;
}

Result<AgentRouter> AgentRouter::create(const AgentLibrary& library, std::map<std::string, memory::Vector> descriptions,
                                        double threshold) {
  AgentRouter r;
  r.threshold_ = threshold;
  for (const auto& a : library.agents()) {
    if (a.level < 1) continue;
    auto v = descriptions.find(a.name);
    if (v == descriptions.end()) return Error{"router", "no embedding of agent '" + a.name + "'s description"};
    r.candidates_.push_back({a.name, a.level, std::move(v->second)});
  }
  const auto roots = library.shape().roots;
  if (roots.empty()) return Error{"router", "the library has no agent of level 1 or more to route to"};
  r.top_ = roots.front();
  return r;
}

RouteDecision AgentRouter::route(const memory::Vector& query, const std::map<std::string, double>& quality) const {
  struct Scored {
    const Candidate* c;
    double score;
    double q;
  };
  std::vector<Scored> scored;
  for (const auto& c : candidates_) {
    auto q = quality.find(c.name);
    scored.push_back({&c, cosine(query, c.vector), q == quality.end() ? 0.0 : q->second});
  }
  // Scores within 1e-9 are equal: float noise must not decide a tie.
  std::sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) {
    if (std::fabs(x.score - y.score) > 1e-9) return x.score > y.score;
    if (x.q != y.q) return x.q > y.q;
    if (x.c->level != y.c->level) return x.c->level > y.c->level;
    return x.c->name < y.c->name;
  });
  RouteDecision d;
  for (const auto& s : scored) d.scores.emplace_back(s.c->name, s.score);
  if (scored.empty() || scored.front().score < threshold_) {
    d.agent = top_;
    d.new_task = true;
    d.score = scored.empty() ? 0 : scored.front().score;
    return d;
  }
  d.agent = scored.front().c->name;
  d.score = scored.front().score;
  return d;
}

}  // namespace kaisha::pyramid
