// Router: effGen's pre-execution routing (Algorithm 1 steps 1 and 3,
// Algorithm 7): score the query with the ComplexityAnalyzer — no model call —
// and decide SINGLE / decompose / HIERARCHICAL under a RoutingConfig
// (routing_decision.hpp says how "decompose" becomes PARALLEL, SEQUENTIAL or
// HYBRID once the DAG exists).
//
// Immutable after create(); route() is const and thread-safe, so one Router
// can serve every agent of a process. To change thresholds (hot reload,
// effGen Algorithm 15) build a new Router and swap it in for the next query.
#pragma once

#include <string_view>

#include "runtime/core/result.hpp"
#include "runtime/effgen/routing/complexity_analyzer.hpp"
#include "runtime/effgen/routing/keyword_tables.hpp"
#include "runtime/effgen/routing/routing_config.hpp"
#include "runtime/effgen/routing/routing_decision.hpp"

namespace kaisha::routing {

class Router {
 public:
  // Validates `config` and builds the analyzer from config.keywords_file, or
  // from default_keyword_tables() when it is empty. Errors (code "config")
  // name the file and key at fault.
  static Result<Router> create(const RoutingConfig& config);
  // The same with tables already in hand (tests, or tables shared by many routers).
  static Result<Router> create(const RoutingConfig& config, const KeywordTables& tables);

  // Scores `query` and decides; the decision carries the score and factors.
  RoutingDecision route(std::string_view query) const;

  const RoutingConfig& config() const { return config_; }
  const ComplexityAnalyzer& analyzer() const { return analyzer_; }

 private:
  Router(RoutingConfig config, ComplexityAnalyzer analyzer)
      : config_(std::move(config)), analyzer_(std::move(analyzer)) {}
  RoutingConfig config_;
  ComplexityAnalyzer analyzer_;
};

}  // namespace kaisha::routing
