// A stand-in for HALO's driver in the search's tests: it answers every
// request from a scripted function of the request (role, depth, key,
// context), in an arrival order the test picks, with no threads or clocks.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/halo/search/mcts_search.hpp"
#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"

namespace kaisha::halo::testing {

using Script = std::function<Evaluation(const EvaluationRequest&)>;

// Which outstanding request is answered next: the oldest, the newest (so a
// rollout runs to its end before the one requested before it moves), or
// one drawn from a seeded stream.
enum class Arrival { oldest_first, newest_first, shuffled };

struct Run {
  std::vector<EvaluationRequest> requests;  // in the order they were answered
  std::vector<SearchEvent> events;
  SearchResult result;
};

inline Run drive(MctsSearch& search, const Script& script, Arrival arrival = Arrival::oldest_first,
                 uint64_t shuffle_seed = 0) {
  Run run;
  std::vector<EvaluationRequest> pending = search.start();
  random::RandomStream order(random::TaskSeed("scripted-driver", shuffle_seed), random::StreamKey("arrival"));
  // A bound instead of a hang if the search never ended.
  for (int answered = 0; !pending.empty() && answered < 100000; ++answered) {
    size_t pick = 0;
    if (arrival == Arrival::newest_first) pick = pending.size() - 1;
    if (arrival == Arrival::shuffled) pick = random::uniform_below(order, pending.size());
    EvaluationRequest request = std::move(pending[pick]);
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
    std::vector<EvaluationRequest> more = search.on_evaluated(request.key, script(request));
    for (auto& event : search.take_events()) run.events.push_back(std::move(event));
    run.requests.push_back(std::move(request));
    for (auto& next : more) pending.push_back(std::move(next));
  }
  for (auto& event : search.take_events()) run.events.push_back(std::move(event));
  EXPECT_TRUE(pending.empty()) << "the driver gave up with requests pending";
  EXPECT_TRUE(search.done()) << "no request pending, yet the search has not ended";
  if (search.done()) run.result = search.result();
  return run;
}

// Every agent answers "<kind> i<iteration> r<index> s<step> role <role> depth <depth>",
// a text unique to the request.
inline std::string answer_for(const EvaluationRequest& request) {
  return std::string(to_string(request.key.kind)) + " i" + std::to_string(request.key.iteration) + " r" +
         std::to_string(request.key.index) + " s" + std::to_string(request.key.step) + " role " +
         std::to_string(request.role) + " depth " + std::to_string(request.depth);
}

// The adversarial judge of item 16: every answer continues, scored 0.5.
inline Evaluation always_continue(const EvaluationRequest& request) {
  return Evaluation{answer_for(request), NodeLabel::continue_, 0.5};
}

template <class Event>
std::vector<Event> events_of(const std::vector<SearchEvent>& events) {
  std::vector<Event> out;
  for (const SearchEvent& event : events) {
    if (const auto* e = std::get_if<Event>(&event)) out.push_back(*e);
  }
  return out;
}

}  // namespace kaisha::halo::testing
