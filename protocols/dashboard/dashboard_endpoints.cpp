#include "protocols/dashboard/dashboard_endpoints.hpp"

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "protocols/dashboard/static_assets.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/dashboard/cluster_view.hpp"
#include "runtime/dashboard/journal_views.hpp"
#include "runtime/dashboard/step_sums.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::dashboard {

namespace {

using protocols::HttpRequest;
using protocols::HttpResponse;

// What the page may do and load: its own files and its own API only, no
// inline script (model text that slipped into markup would not run).
constexpr const char* kPagePolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string query_text(const HttpRequest& req, const char* key) {
  auto it = req.query.find(key);
  return it == req.query.end() ? std::string() : it->second;
}

int query_int(const HttpRequest& req, const char* key, int fallback) {
  const std::string v = query_text(req, key);
  if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) return fallback;
  return std::stoi(v);
}

void reply(HttpResponse& res, const Result<json>& r) {
  res.headers["Cache-Control"] = "no-store";
  if (r.ok()) return res.set_json(200, *r);
  if (r.error().code == "not_found") return res.set_error(404, "not_found", r.error().message);
  res.set_error(500, "journal", r.error().message);
}

// The POST body as a JSON object, or why not (answered on `res`).
std::optional<json> json_body(const HttpRequest& req, HttpResponse& res) {
  if (req.header("content-type").rfind("application/json", 0) != 0) {
    res.set_error(415, "unsupported_media_type", "send the body as Content-Type: application/json");
    return std::nullopt;
  }
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    res.set_error(400, "bad_request", "the body is not a JSON object");
    return std::nullopt;
  }
  return body;
}

// Read-only connections to the journal: what the views read with.
struct JournalReader {
  std::unique_ptr<store::JournalStore> store;
  std::unique_ptr<StepSums> sums;
};

class Api : public std::enable_shared_from_this<Api> {
 public:
  Api(protocols::HttpServer& server, DashboardCompany& company, DashboardOptions options)
      : server_(server), company_(company), options_(std::move(options)) {}

  // `view` reads the journal; the request is answered with its JSON.
  template <class View>
  protocols::HttpHandler reading(View view) {
    return [self = shared_from_this(), view](const HttpRequest& req, HttpResponse& res) {
      if (!self->allowed(req, res)) return;
      auto reader = self->take_reader();
      if (!reader.ok()) {
        res.headers["Retry-After"] = "1";
        return res.set_error(503, "journal", "cannot read the journal: " + reader.error().message);
      }
      Result<json> answer = view(**reader, req);
      // A connection that failed a read is closed, not kept.
      if (answer.ok() || answer.error().code == "not_found") self->give_back(std::move(*reader));
      reply(res, answer);
    };
  }

  // `act` acts on the company; its answer is given as it is.
  template <class Act>
  protocols::HttpHandler acting(Act act) {
    return [self = shared_from_this(), act](const HttpRequest& req, HttpResponse& res) {
      if (!self->allowed(req, res)) return;
      res.headers["Cache-Control"] = "no-store";
      act(req, res);
    };
  }

  bool allowed(const HttpRequest& req, HttpResponse& res) const {
    if (Status s = server_.check_origin(req); !s.ok()) {
      res.set_error(403, "forbidden", s.error().message);
      return false;
    }
    return true;
  }

  DashboardCompany& company() { return company_; }
  const DashboardOptions& options() const { return options_; }

 private:
  // Opening a journal (its connections, the schema checks) costs about as
  // much as a view of a short task: a few readers are kept open between
  // requests, and each request takes one that no other request is using.
  static constexpr size_t kKeptReaders = 2;

  Result<std::unique_ptr<JournalReader>> take_reader() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        auto r = std::move(idle_.back());
        idle_.pop_back();
        return r;
      }
    }
    auto store = store::JournalStore::open_read_only(options_.store_path);
    if (!store.ok()) return store.error();
    auto sums = StepSums::open_read_only(options_.store_path);
    if (!sums.ok()) return sums.error();
    return std::make_unique<JournalReader>(JournalReader{std::move(*store), std::move(*sums)});
  }

  void give_back(std::unique_ptr<JournalReader> reader) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < kKeptReaders) idle_.push_back(std::move(reader));
  }

  protocols::HttpServer& server_;
  DashboardCompany& company_;
  DashboardOptions options_;
  std::mutex mu_;
  std::vector<std::unique_ptr<JournalReader>> idle_;
};

void serve_asset(const protocols::HttpServer& server, const StaticAssets& assets, const std::string& name,
                 const HttpRequest& req, HttpResponse& res) {
  if (Status s = server.check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
  const StaticAsset* a = assets.find(name);
  if (!a) return res.set_error(404, "not_found", "the dashboard has no file '" + name + "'");
  res.headers["ETag"] = a->etag;
  res.headers["Cache-Control"] = "no-cache";
  res.headers["X-Content-Type-Options"] = "nosniff";
  res.headers["Referrer-Policy"] = "no-referrer";
  if (a->content_type.rfind("text/html", 0) == 0) {
    res.headers["Content-Security-Policy"] = kPagePolicy;
    res.headers["X-Frame-Options"] = "DENY";
  }
  if (req.header("if-none-match") == a->etag) {
    res.status = 304;
    res.content_type = a->content_type;
    return;
  }
  res.status = 200;
  res.content_type = a->content_type;
  res.body = a->body;
}

}  // namespace

Status mount_dashboard(protocols::HttpServer& server, DashboardCompany& company, DashboardOptions options) {
  if (options.assets_dir.empty()) options.assets_dir = data_file("web/dashboard");
  auto loaded = StaticAssets::load(options.assets_dir);
  if (!loaded.ok()) return loaded.error();
  auto assets = std::make_shared<const StaticAssets>(std::move(loaded).value());
  const protocols::HttpServer* srv = &server;
  server.route_public_get("/", [srv, assets](const HttpRequest& req, HttpResponse& res) {
    serve_asset(*srv, *assets, "index.html", req, res);
  });
  server.route_public_get("/dashboard/([A-Za-z0-9_-]+\\.[a-z]+)",
                          [srv, assets](const HttpRequest& req, HttpResponse& res) {
                            serve_asset(*srv, *assets, req.path_params.at(0), req, res);
                          });

  // Whether to ask for a token before the first request (which would
  // otherwise be refused, and logged by the browser as an error).
  server.route_public_get("/dashboard/auth", [srv](const HttpRequest& req, HttpResponse& res) {
    if (Status s = srv->check_origin(req); !s.ok()) return res.set_error(403, "forbidden", s.error().message);
    res.headers["Cache-Control"] = "no-store";
    res.set_json(200, json{{"token_required", !srv->options().bearer_token.empty()}});
  });

  auto api = std::make_shared<Api>(server, company, std::move(options));
  const std::string p = "/dashboard/api";
  server.route("GET", p + "/info", api->acting([api](const HttpRequest&, HttpResponse& res) {
    res.set_json(200, json{{"session", api->options().host_session},
                           {"strategy", api->company().strategy()},
                           {"text_included", api->options().include_text},
                           {"per_session_budget", api->company().per_session_budget()}});
  }));
  server.route("GET", p + "/agents", api->reading([api](JournalReader& r, const HttpRequest&) {
    auto agents = agents_json(*r.store, *r.sums, api->options().host_session);
    if (agents.ok()) place_agents(*agents, api->company().cluster());
    return agents;
  }));
  server.route("GET", p + "/cluster", api->acting([api](const HttpRequest&, HttpResponse& res) {
    res.set_json(200, api->company().cluster());
  }));
  server.route("GET", p + "/tasks", api->reading([api](JournalReader& r, const HttpRequest& req) {
    TaskQuery q;
    q.text = query_text(req, "q");
    q.status = query_text(req, "status");
    q.limit = query_int(req, "limit", 50);
    q.offset = query_int(req, "offset", 0);
    return tasks_json(*r.store, api->options().host_session, q);
  }));
  // A task the company has just taken may not be in the journal yet: it is
  // answered as pending, not as unknown.
  auto or_pending = [api](Result<json> r, const std::string& id) -> Result<json> {
    if (r.ok() || r.error().code != "not_found" || !api->company().holds_task(id)) return r;
    return json{{"task", id}, {"pending", true}};
  };
  server.route("GET", p + "/tasks/([^/]+)/tree", api->reading([or_pending](JournalReader& r, const HttpRequest& req) {
    return or_pending(task_tree_json(*r.store, req.path_params.at(0)), req.path_params.at(0));
  }));
  server.route("GET", p + "/tasks/([^/]+)/transcript",
               api->reading([api, or_pending](JournalReader& r, const HttpRequest& req) {
                 const std::string& id = req.path_params.at(0);
                 return or_pending(transcript_json(*r.store, id, api->options().include_text,
                                                   query_int(req, "offset", 0), query_int(req, "limit", 200)),
                                   id);
               }));
  // ?session=S: the budget session S charges (with a budget per session), else the served session's.
  server.route("GET", p + "/ledger", api->reading([api](JournalReader& r, const HttpRequest& req) -> Result<json> {
    auto points = ledger_json(*r.store, api->options().host_session);
    if (!points.ok()) return points;
    const std::string session = query_text(req, "session");
    auto budget = api->company().budget(session);
    if (!budget.ok()) return budget.error();
    if (!session.empty() && api->company().per_session_budget()) (*points)["session"] = session;
    (*points)["budget"] = std::move(budget).value();
    return points;
  }));
  server.route("POST", p + "/tasks", api->acting([api](const HttpRequest& req, HttpResponse& res) {
    auto body = json_body(req, res);
    if (!body) return;
    const json& input = (*body)["input"];
    if (!input.is_string() || input.get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos)
      return res.set_error(400, "bad_request", "give the task as {\"input\": \"<text>\"}");
    auto id = api->company().submit(input.get<std::string>());
    if (!id.ok())
      return res.set_error(id.error().code == "limit" || id.error().code == "busy" ? 429 : 409, id.error().code,
                           id.error().message);
    res.set_json(202, json{{"task", *id}});
  }));
  server.route("POST", p + "/tasks/([^/]+)/cancel", api->acting([api](const HttpRequest& req, HttpResponse& res) {
    if (!json_body(req, res)) return;
    const std::string& id = req.path_params.at(0);
    if (Status s = api->company().cancel(id); !s.ok()) return res.set_error(409, s.error().code, s.error().message);
    res.set_json(202, json{{"task", id}, {"canceling", true}});
  }));
  server.route("POST", p + "/tasks/([^/]+)/input", api->acting([api](const HttpRequest& req, HttpResponse& res) {
    auto body = json_body(req, res);
    if (!body) return;
    const json& text = (*body)["text"];
    if (!text.is_string()) return res.set_error(400, "bad_request", "give the answer as {\"text\": \"<answer>\"}");
    const std::string& id = req.path_params.at(0);
    if (Status s = api->company().provide_input(id, text.get<std::string>()); !s.ok())
      return res.set_error(409, s.error().code, s.error().message);
    res.set_json(202, json{{"task", id}});
  }));
  // The operator's raise (the bearer token is the operator's): journaled by the
  // ledger like `kaisha budget --raise-*`, committed before the answer.
  server.route("POST", p + "/budget/raise", api->acting([api](const HttpRequest& req, HttpResponse& res) {
    auto body = json_body(req, res);
    if (!body) return;
    const json& ledger = (*body)["ledger"];
    const json& amount = (*body)["amount"];
    const json& session = (*body)["session"];  // absent: the served session's budget
    if (!ledger.is_string() || (ledger != "expense" && ledger != "resource"))
      return res.set_error(400, "bad_request", "give the budget to raise as \"ledger\": \"expense\" or \"resource\"");
    if (!amount.is_number() || !(amount.get<double>() > 0) || !std::isfinite(amount.get<double>()))
      return res.set_error(400, "bad_request", "give the increase as \"amount\": a number above 0");
    if (!session.is_null() && !session.is_string())
      return res.set_error(400, "bad_request", "give the session whose budget to raise as \"session\": \"<id>\"");
    const std::string in = session.is_string() ? session.get<std::string>() : std::string();
    if (Status s = api->company().raise_budget(in, ledger.get<std::string>(), amount.get<double>()); !s.ok())
      return res.set_error(s.error().code == "not_found" ? 404 : 409, s.error().code, s.error().message);
    auto budget = api->company().budget(in);
    res.set_json(200, json{{"ledger", ledger},
                           {"amount", amount},
                           {"session", in},
                           {"budget", budget.ok() ? *budget : json(nullptr)}});
  }));
  return Status::Ok();
}

}  // namespace kaisha::dashboard
