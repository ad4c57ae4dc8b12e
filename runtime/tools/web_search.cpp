#include "runtime/tools/web_search.hpp"

#include "runtime/core/json.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/http/form_encode.hpp"
#include "runtime/tools/web_page.hpp"

namespace kaisha::tools {
namespace {

class SearxngEngine : public SearchEngine {
 public:
  SearxngEngine(http::HttpClient& http, std::string base, int64_t timeout_ms)
      : http_(http), base_(std::move(base)), timeout_ms_(timeout_ms) {
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
  }
  std::string name() const override { return "searxng"; }

  void search(const std::string& query, int max_results, SearchDone done) override {
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = base_ + "/search?q=" + http::form_encode(query) + "&format=json";
    req.headers = {{"Accept", "application/json"}};
    http::HttpOptions opts;
    opts.timeout_ms = timeout_ms_;
    opts.max_response_bytes = 4u << 20;
    const std::string where = "web search (searxng at " + base_ + ")";
    http::HttpCallbacks cb;
    cb.on_done = [done, max_results, where](http::HttpResult r) {
      if (r.error != http::TransportError::none) return done(Error{"search", where + " failed: " + r.error_message});
      if (!r.ok()) return done(Error{"search", where + " answered HTTP " + std::to_string(r.status)});
      json j = json::parse(utf8::repair(r.body), nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("results") || !j["results"].is_array())
        return done(Error{"search", where + " did not answer with a JSON object holding 'results'"});
      std::vector<SearchHit> hits;
      for (const json& h : j["results"]) {
        if (static_cast<int>(hits.size()) >= max_results) break;
        if (!h.is_object() || !h.contains("url") || !h["url"].is_string()) continue;
        auto text = [&h](const char* k) { return h.contains(k) && h[k].is_string() ? h[k].get<std::string>() : ""; };
        hits.push_back({text("title"), text("url"), text("content")});
      }
      done(std::move(hits));
    };
    http_.submit(std::move(req), opts, std::move(cb));
  }

 private:
  http::HttpClient& http_;
  std::string base_;
  int64_t timeout_ms_;
};

}  // namespace

std::shared_ptr<SearchEngine> make_searxng_engine(http::HttpClient& http, std::string base_url, int64_t timeout_ms) {
  return std::make_shared<SearxngEngine>(http, std::move(base_url), timeout_ms);
}

json hits_to_json(const std::vector<SearchHit>& hits) {
  json out = json::array();
  for (const SearchHit& h : hits) out.push_back({{"title", h.title}, {"url", h.url}, {"snippet", h.snippet}});
  return out;
}

Status check_search_config(const std::string& engine, const std::string& url) {
  if (!engine.empty() && engine != "searxng")
    return Error{"config", "tools.web_search.engine: unknown engine '" + engine + "' (searxng, or leave it empty)"};
  if (engine == "searxng" && url.empty())
    return Error{"config", "tools.web_search.url is required for the searxng engine"};
  return Status::Ok();
}

}  // namespace kaisha::tools
