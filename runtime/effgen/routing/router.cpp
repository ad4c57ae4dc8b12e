#include "runtime/effgen/routing/router.hpp"

namespace kaisha::routing {

Result<Router> Router::create(const RoutingConfig& config, const KeywordTables& tables) {
  if (Status s = config.validate(); !s) return s.error();
  auto analyzer = ComplexityAnalyzer::create(tables, config.analyzer_options());
  if (!analyzer) return analyzer.error();
  return Router(config, std::move(*analyzer));
}

Result<Router> Router::create(const RoutingConfig& config) {
  if (!config.keywords_file.empty()) {
    auto tables = load_keyword_tables(config.keywords_file);
    if (!tables) return tables.error();
    return create(config, *tables);
  }
  auto tables = default_keyword_tables();
  if (!tables) return tables.error();
  return create(config, **tables);
}

RoutingDecision Router::route(std::string_view query) const { return decide_route(analyzer_.analyze(query), config_); }

}  // namespace kaisha::routing
