// Web search for GoogleSearchTool (hashiru.md §3.3) behind a pluggable
// search engine. With no engine configured the tool stays listed but every
// call answers with kSearchDisabled, which says how to configure one.
//
// The one engine shipped is SearXNG's JSON API (a self-hostable metasearch
// engine): GET <base_url>/search?q=...&format=json.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::tools {

struct SearchHit {
  std::string title, url, snippet;
};

using SearchDone = std::function<void(Result<std::vector<SearchHit>>)>;

// The hits as a search tool hands them to a model: [{"title", "url", "snippet"}, ...].
json hits_to_json(const std::vector<SearchHit>& hits);

class SearchEngine {
 public:
  virtual ~SearchEngine() = default;
  virtual std::string name() const = 0;
  // Non-blocking; `done` is called exactly once, from any thread.
  virtual void search(const std::string& query, int max_results, SearchDone done) = 0;
};

inline const char* kSearchDisabled =
    "GoogleSearchTool is disabled: no web search engine is configured. Set tools.web_search.engine "
    "(searxng) and tools.web_search.url in the kaisha config to enable it.";

// Checks the configured engine's name and URL ("" = disabled, "searxng"
// needs its URL); the Error names the config key.
Status check_search_config(const std::string& engine, const std::string& url);

// A SearXNG instance at `base_url` (e.g. http://127.0.0.1:8888), reached
// through `http` (which must outlive the engine).
std::shared_ptr<SearchEngine> make_searxng_engine(http::HttpClient& http, std::string base_url, int64_t timeout_ms);

}  // namespace kaisha::tools
