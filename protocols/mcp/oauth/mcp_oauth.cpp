#include "protocols/mcp/oauth/mcp_oauth.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "protocols/mcp/oauth/oauth_challenge.hpp"
#include "protocols/mcp/oauth/oauth_client_assertion.hpp"
#include "protocols/mcp/oauth/oauth_discovery.hpp"
#include "protocols/mcp/oauth/oauth_dpop.hpp"
#include "protocols/mcp/oauth/oauth_loopback.hpp"
#include "protocols/mcp/oauth/oauth_pkce.hpp"
#include "protocols/mcp/oauth/oauth_redirect.hpp"
#include "protocols/mcp/oauth/oauth_token_expiry.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/http/form_encode.hpp"
#include "runtime/http/redirect.hpp"

namespace kaisha::mcp {
namespace {

constexpr size_t kMaxWaiting = 256;   // challenges queued behind the one being handled
constexpr int kMaxAuthorizeHops = 5;  // redirects followed from the authorization endpoint
constexpr size_t kMaxMetadataBytes = 1u << 20;
constexpr const char* kJwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer";
constexpr const char* kJwtClientAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
constexpr const char* kTokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr const char* kIdTokenType = "urn:ietf:params:oauth:token-type:id_token";
constexpr const char* kIdJagType = "urn:ietf:params:oauth:token-type:id-jag";

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> strings_of(const json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.is_object()) return out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::string string_of(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// True only for a JSON `true` (metadata from a server may hold anything).
bool flag_of(const json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

json body_json(const http::HttpResult& r) { return parse_json_or_discarded(utf8::repair(r.body)); }

// "HTTP 404" or the transport's reason; never the body (it may echo secrets).
std::string outcome(const http::HttpResult& r) {
  if (r.error != http::TransportError::none) return r.error_message;
  return "HTTP " + std::to_string(r.status);
}

// An OAuth error response's error and description (RFC 6749 §5.2).
std::string oauth_error(const http::HttpResult& r) {
  std::string out = outcome(r);
  const json j = body_json(r);
  const std::string e = string_of(j, "error");
  if (!e.empty()) out += " " + e;
  const std::string d = string_of(j, "error_description");
  if (!d.empty()) out += " (" + utf8::truncate(d, 200) + ")";
  return out;
}

std::string form(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [k, v] : fields) {
    if (v.empty()) continue;
    out += (out.empty() ? "" : "&") + http::form_encode(k) + "=" + http::form_encode(v);
  }
  return out;
}

}  // namespace

// One run of the flow: what it has learned so far.
struct Flow {
  int status = 401;
  OAuthChallenge challenge;
  std::vector<std::string> prm_urls;
  size_t prm_next = 0;
  std::vector<std::string> tried;  // "URL (outcome)", for the error when discovery fails
  json prm;                        // protected resource metadata; null for a 2025-03-26 server
  std::string issuer;
  std::vector<std::string> as_urls;
  size_t as_next = 0;
  json meta;  // authorization server metadata
  std::string resource;
  std::string scope;
  OAuthClientRegistration client;
  Pkce pkce;
  std::string state;
  int hops = 0;
  bool ahead = false;  // a refresh before expiry: when it fails, the 401 path takes over (no new authorization)
  bool dpop = false;   // the authorization server binds tokens to our DPoP key
  std::string authorize_url;
  // While a person signs in: the listener for the browser's redirect, and
  // whether the redirect or the timeout came first.
  std::unique_ptr<OAuthLoopbackListener> listener;
  std::shared_ptr<std::atomic<bool>> settled;
};

struct McpOAuth::Impl : std::enable_shared_from_this<McpOAuth::Impl> {
  http::HttpClient* http = nullptr;
  std::string name;
  std::string url;
  OAuthSettings s;

  std::mutex mu;                   // the nine below
  std::string access;              // the stored access token, cached: the transport asks before every request
  OAuthTokenExpiry expiry;         // of `access`
  bool refreshable = false;        // a refresh token is stored with it
  bool ahead_tried = false;        // a refresh before expiry was tried for it (once per token)
  std::optional<DpopKey> dpop;     // set while the token is DPoP-bound
  std::string as_nonce, rs_nonce;  // the latest DPoP nonces of the token endpoint and the MCP server
  bool running = false;
  std::vector<std::function<void(Status)>> waiting;
  std::string last_scope;  // the scope asked for last, joined into a step-up

  std::optional<OAuthTokens> stored() { return s.store->tokens(url); }
  void set_access(const std::string& a) {
    std::lock_guard<std::mutex> lock(mu);
    access = a;
  }
  OAuthTokenExpiry::Steady::time_point steady_now() const {
    return s.steady_clock ? s.steady_clock() : OAuthTokenExpiry::Steady::now();
  }
  int64_t wall_now() const { return s.wall_clock ? s.wall_clock() : now_s(); }
  // `fresh`: from the token endpoint just now (else read from the store).
  void set_tokens(const OAuthTokens& t, bool fresh) {
    std::optional<DpopKey> key;
    if (t.token_type == "DPoP" && !t.dpop_key.empty())
      if (auto k = DpopKey::from_pem(t.dpop_key); k.ok()) key = *k;
    const OAuthTokenExpiry e = fresh
                                   ? OAuthTokenExpiry::from_expires_in(t.lifetime, steady_now())
                                   : OAuthTokenExpiry::from_stored(t.expires_at, t.lifetime, wall_now(), steady_now());
    std::lock_guard<std::mutex> lock(mu);
    access = t.access_token;
    dpop = key;
    expiry = e;
    refreshable = !t.refresh_token.empty();
    ahead_tried = false;
  }
  // The token is near its expiry and a refresh ahead of it is worth trying
  // (or one is running). Under mu.
  bool refresh_due_locked() {
    return !access.empty() && refreshable && (running || !ahead_tried) && expiry.due(steady_now());
  }
  // The key for this flow's DPoP proofs: the current one, else a new one.
  DpopKey dpop_key() {
    std::lock_guard<std::mutex> lock(mu);
    if (!dpop) dpop = DpopKey::generate();
    return *dpop;
  }

  Error failure(const std::string& what) const {
    return Error{"mcp_auth", "MCP server " + name + " (" + url + ") demands authorization; " + what};
  }

  void finish(Status result) {
    std::vector<std::function<void(Status)>> w;
    {
      std::lock_guard<std::mutex> lock(mu);
      running = false;
      w.swap(waiting);
    }
    for (auto& f : w) f(result);
  }
  void fail(const std::string& what) { finish(failure(what)); }

  void send(http::HttpRequestSpec req, std::function<void(http::HttpResult)> cb) {
    http::HttpOptions ho;
    ho.timeout_ms = s.http_timeout_ms;
    ho.max_response_bytes = kMaxMetadataBytes;
    http::HttpCallbacks c;
    c.on_done = std::move(cb);
    http->submit(std::move(req), ho, std::move(c));
  }
  void get(const std::string& u, std::function<void(http::HttpResult)> cb) {
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = u;
    req.headers = {{"Accept", "application/json"}};
    send(std::move(req), std::move(cb));
  }

  // --- 1. protected resource metadata ---------------------------------
  void start(std::shared_ptr<Flow> f) {
    f->prm_urls = protected_resource_metadata_urls(url, f->challenge.resource_metadata);
    next_prm(std::move(f));
  }

  void next_prm(std::shared_ptr<Flow> f) {
    if (f->prm_next >= f->prm_urls.size()) {
      // No protected resource metadata: a 2025-03-26 server, which is its
      // own authorization server at its origin.
      f->issuer = split_url(url).origin;
      f->resource = url;
      f->as_urls = {f->issuer + "/.well-known/oauth-authorization-server"};
      return next_as(std::move(f));
    }
    const std::string u = f->prm_urls[f->prm_next++];
    auto self = shared_from_this();
    get(u, [self, f, u](http::HttpResult r) {
      const json j = r.ok() ? body_json(r) : json();
      const auto servers = strings_of(j, "authorization_servers");
      if (!r.ok() || servers.empty()) {
        f->tried.push_back(u + " (" + (r.ok() ? "no authorization_servers" : outcome(r)) + ")");
        return self->next_prm(f);
      }
      const std::string resource = string_of(j, "resource");
      if (!resource_matches(resource, self->url))
        return self->fail("its protected resource metadata at " + u + " names the resource '" + resource +
                          "', which is not this server (refused, RFC 9728 §3.3)");
      f->prm = j;
      f->resource = resource;
      f->issuer = servers.front();
      f->as_urls = authorization_server_metadata_urls(f->issuer);
      self->next_as(f);
    });
  }

  // --- 2. authorization server metadata -------------------------------
  void next_as(std::shared_ptr<Flow> f) {
    if (f->as_next >= f->as_urls.size()) {
      if (!f->prm.is_null()) {
        std::string tried;
        for (const auto& t : f->tried) tried += (tried.empty() ? "" : ", ") + t;
        return fail("no authorization server metadata for " + f->issuer + "; tried " + tried);
      }
      // 2025-03-26 fallback: the default endpoints at the server's origin.
      f->meta = {{"issuer", f->issuer},
                 {"authorization_endpoint", f->issuer + "/authorize"},
                 {"token_endpoint", f->issuer + "/token"},
                 {"registration_endpoint", f->issuer + "/register"},
                 {"code_challenge_methods_supported", {"S256"}}};
      return with_metadata(std::move(f));
    }
    const std::string u = f->as_urls[f->as_next++];
    auto self = shared_from_this();
    get(u, [self, f, u](http::HttpResult r) {
      const json j = r.ok() ? body_json(r) : json();
      if (!j.is_object() || string_of(j, "token_endpoint").empty()) {
        f->tried.push_back(u + " (" + (r.ok() ? "not authorization server metadata" : outcome(r)) + ")");
        return self->next_as(f);
      }
      if (string_of(j, "issuer") != f->issuer)
        return self->fail("the authorization server metadata at " + u + " names issuer '" + string_of(j, "issuer") +
                          "', not '" + f->issuer + "' (refused, RFC 8414 §3.3)");
      f->meta = j;
      self->with_metadata(f);
    });
  }

  void with_metadata(std::shared_ptr<Flow> f) {
    if (s.grant == OAuthGrant::authorization_code &&
        !contains(strings_of(f->meta, "code_challenge_methods_supported"), "S256"))
      return fail("its authorization server " + f->issuer +
                  " does not list S256 in code_challenge_methods_supported, and MCP clients must not authorize "
                  "without PKCE S256 (refused)");
    f->dpop = contains(strings_of(f->meta, "dpop_signing_alg_values_supported"), "ES256");
    // Scope: fixed by configuration, else the challenge's, else the resource's.
    {
      std::lock_guard<std::mutex> lock(mu);
      f->scope = !s.scopes.empty()
                     ? s.scopes
                     : select_scope(f->challenge.scope, strings_of(f->prm, "scopes_supported"),
                                    f->status == 403 ? last_scope : "", s.grant == OAuthGrant::authorization_code,
                                    strings_of(f->meta, "scopes_supported"));
    }
    // 3. A refresh before a new authorization (not on a step-up: a refresh
    // cannot widen the scope).
    auto old = stored();
    if (old && old->issuer != f->issuer) {
      s.store->forget_tokens(url);  // from another authorization server: never presented to this one
      set_access("");
      old.reset();
    }
    if (f->ahead && (!old || old->refresh_token.empty()))
      return fail("its token has no refresh token to renew it with");
    choose_client(f, [self = shared_from_this(), f, old](Status st) {
      if (!st.ok()) return self->finish(st);
      if (f->status == 401 && old && !old->refresh_token.empty()) return self->refresh(f, *old);
      self->grant(f);
    });
  }

  // --- 4. the client ---------------------------------------------------
  void choose_client(std::shared_ptr<Flow> f, std::function<void(Status)> then) {
    const auto methods = strings_of(f->meta, "token_endpoint_auth_methods_supported");
    if (!s.client_id.empty()) {
      f->client.client_id = s.client_id;
      f->client.client_secret = s.client_secret;
      f->client.auth_method = !s.private_key_pem.empty() ? "private_key_jwt"
                              : s.client_secret.empty()  ? "none"
                              : contains(methods, "client_secret_post") && !contains(methods, "client_secret_basic")
                                  ? "client_secret_post"
                                  : "client_secret_basic";
      return then(Status::Ok());
    }
    if (s.grant == OAuthGrant::authorization_code && !s.client_metadata_url.empty() &&
        flag_of(f->meta, "client_id_metadata_document_supported")) {
      f->client = {s.client_metadata_url, "", "none"};
      return then(Status::Ok());
    }
    if (auto r = s.store->registration(f->issuer)) {
      f->client = *r;
      return then(Status::Ok());
    }
    const std::string endpoint = string_of(f->meta, "registration_endpoint");
    if (endpoint.empty())
      return then(
          failure("its authorization server " + f->issuer +
                  " offers no dynamic client registration; configure auth.client_id (and auth.client_secret_env) "
                  "for this server"));
    register_client(f, endpoint, methods, std::move(then));
  }

  void register_client(std::shared_ptr<Flow> f, const std::string& endpoint, const std::vector<std::string>& methods,
                       std::function<void(Status)> then) {
    const bool code = s.grant == OAuthGrant::authorization_code;
    // RFC 8414: an absent list means client_secret_basic only.
    const std::vector<std::string> offered =
        methods.empty() ? std::vector<std::string>{"client_secret_basic"} : methods;
    std::string method = "client_secret_basic";
    if (code && contains(offered, "none"))
      method = "none";
    else if (contains(offered, "client_secret_basic"))
      method = "client_secret_basic";
    else if (contains(offered, "client_secret_post"))
      method = "client_secret_post";
    json req = {{"client_name", s.client_name}, {"token_endpoint_auth_method", method}};
    if (code) {
      req["redirect_uris"] = {s.redirect_uri};
      req["grant_types"] = {"authorization_code", "refresh_token"};
      req["response_types"] = {"code"};
      req["application_type"] = "native";  // a loopback redirect: a native client (SEP-837)
    } else {
      req["grant_types"] = {s.grant == OAuthGrant::jwt_bearer ? kJwtBearerGrant : "client_credentials"};
      req["application_type"] = "web";
    }
    if (!f->scope.empty()) req["scope"] = f->scope;
    http::HttpRequestSpec spec;
    spec.url = endpoint;
    spec.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    spec.body = req.dump();
    auto self = shared_from_this();
    send(std::move(spec), [self, f, endpoint, method, then = std::move(then)](http::HttpResult r) {
      const json j = r.ok() ? body_json(r) : json();
      const std::string id = string_of(j, "client_id");
      if (id.empty())
        return then(self->failure("dynamic client registration at " + endpoint + " failed: " + oauth_error(r)));
      f->client.client_id = id;
      f->client.client_secret = string_of(j, "client_secret");
      f->client.auth_method = string_of(j, "token_endpoint_auth_method");
      if (f->client.auth_method.empty()) f->client.auth_method = f->client.client_secret.empty() ? "none" : method;
      self->s.store->put_registration(f->issuer, f->client);
      then(Status::Ok());
    });
  }

  // The token request's client authentication (RFC 6749 §2.3.1, RFC 7523 §2.2).
  Status authenticate(const Flow& f, http::HttpRequestSpec& spec,
                      std::vector<std::pair<std::string, std::string>>& fields) {
    const auto& c = f.client;
    if (c.auth_method == "private_key_jwt") {
      auto a = make_client_assertion(s.private_key_pem, s.signing_alg, c.client_id, f.issuer, now_s());
      if (!a.ok()) return a.error();
      fields.push_back({"client_id", c.client_id});
      fields.push_back({"client_assertion_type", kJwtClientAssertion});
      fields.push_back({"client_assertion", *a});
      return Status::Ok();
    }
    if (c.auth_method == "client_secret_basic" && !c.client_secret.empty()) {
      spec.headers.push_back({"Authorization", "Basic " + base64(http::form_encode(c.client_id) + ":" +
                                                                 http::form_encode(c.client_secret))});
      return Status::Ok();
    }
    fields.push_back({"client_id", c.client_id});
    if (c.auth_method == "client_secret_post") fields.push_back({"client_secret", c.client_secret});
    return Status::Ok();
  }

  // The jwt_bearer grant's assertion: configured, or read from its file now.
  Result<std::string> assertion() {
    if (!s.assertion.empty()) return s.assertion;
    std::ifstream in(s.assertion_file, std::ios::binary);
    if (!in) return Error{"oauth", "the assertion file " + s.assertion_file + " cannot be read"};
    std::ostringstream text;
    text << in.rdbuf();
    std::string a = text.str();
    while (!a.empty() && (a.back() == '\n' || a.back() == '\r' || a.back() == ' ')) a.pop_back();
    if (a.empty() || a.size() > 64 * 1024)
      return Error{"oauth", "the assertion file " + s.assertion_file + " holds no usable JWT"};
    return a;
  }

  // --- 5. the grant ----------------------------------------------------
  void grant(std::shared_ptr<Flow> f) {
    if (s.grant == OAuthGrant::client_credentials)
      return token_request(f, {{"grant_type", "client_credentials"}, {"scope", f->scope}, {"resource", f->resource}},
                           "");
    if (s.grant == OAuthGrant::jwt_bearer) {
      auto a = assertion();
      if (!a.ok()) return fail(a.error().message);
      // A refused assertion is reported, not retried nor traded for another grant.
      return token_request(
          f, {{"grant_type", kJwtBearerGrant}, {"assertion", *a}, {"scope", f->scope}, {"resource", f->resource}}, "");
    }
    if (s.grant == OAuthGrant::identity_assertion) return exchange_id_token(f);
    authorize(f);
  }

  // Enterprise-managed authorization: the ID token becomes an ID-JAG at the
  // identity provider (RFC 8693), and the ID-JAG a token here (RFC 7523).
  void exchange_id_token(std::shared_ptr<Flow> f) {
    auto id_token = assertion();
    if (!id_token.ok()) return fail(id_token.error().message);
    http::HttpRequestSpec spec;
    spec.url = s.idp_token_endpoint;
    spec.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
    spec.body = form({{"grant_type", kTokenExchangeGrant},
                      {"requested_token_type", kIdJagType},
                      {"subject_token", *id_token},
                      {"subject_token_type", kIdTokenType},
                      {"audience", f->issuer},
                      {"resource", f->resource},
                      {"scope", f->scope},
                      {"client_id", s.idp_client_id}});
    auto self = shared_from_this();
    send(std::move(spec), [self, f](http::HttpResult r) {
      const json j = r.ok() ? body_json(r) : json();
      const std::string jag = string_of(j, "access_token");
      if (jag.empty())
        return self->fail("the identity provider's token exchange at " + self->s.idp_token_endpoint +
                          " failed: " + oauth_error(r));
      self->token_request(
          f, {{"grant_type", kJwtBearerGrant}, {"assertion", jag}, {"scope", f->scope}, {"resource", f->resource}}, "");
    });
  }

  void authorize(std::shared_ptr<Flow> f) {
    const std::string endpoint = string_of(f->meta, "authorization_endpoint");
    if (endpoint.empty()) return fail("its authorization server " + f->issuer + " has no authorization_endpoint");
    {
      std::lock_guard<std::mutex> lock(mu);
      last_scope = f->scope;
    }
    f->pkce = make_pkce();
    f->state = random_token(24);
    const std::string q = form({{"response_type", "code"},
                                {"client_id", f->client.client_id},
                                {"redirect_uri", s.redirect_uri},
                                {"code_challenge", f->pkce.challenge},
                                {"code_challenge_method", "S256"},
                                {"state", f->state},
                                {"scope", f->scope},
                                {"resource", f->resource}});
    f->authorize_url = endpoint + (endpoint.find('?') == std::string::npos ? "?" : "&") + q;
    follow(f, f->authorize_url, endpoint);
  }

  // The authorization request, sent by kaisha itself: redirects are
  // followed by hand until one reaches the redirect_uri.
  void follow(std::shared_ptr<Flow> f, const std::string& u, const std::string& first) {
    auto self = shared_from_this();
    http::HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = u;
    send(std::move(spec), [self, f, u, first](http::HttpResult r) {
      if (r.error == http::TransportError::none && http::is_redirect_status(r.status)) {
        auto target = http::redirect_target(u, r.header("location"));
        if (!target.ok()) return self->fail("the authorization request failed: " + target.error().message);
        if (is_redirect_to(*target, self->s.redirect_uri)) return self->redeem(f, *target);
        if (++f->hops <= kMaxAuthorizeHops) return self->follow(f, *target, first);
      }
      if (r.error != http::TransportError::none)
        return self->fail("the authorization endpoint " + first + " could not be reached: " + r.error_message);
      if (r.ok() && self->s.ask_user) return self->wait_for_user(f);
      self->fail(
          "the authorization endpoint " + first + " answered " + outcome(r) + " instead of redirecting to " +
          self->s.redirect_uri +
          ": it wants a person to sign in, which kaisha's headless client cannot do; authorize a client_credentials "
          "client (auth.grant: client_credentials) or one the server approves without a person");
    });
  }

  // The authorization response at the redirect_uri: its code for a token.
  void redeem(std::shared_ptr<Flow> f, const std::string& redirect_url) {
    AuthorizationResponseCheck check{f->state, f->issuer,
                                     flag_of(f->meta, "authorization_response_iss_parameter_supported")};
    auto code = authorization_code(redirect_url, check);
    if (!code.ok()) return fail(code.error().message);
    token_request(f,
                  {{"grant_type", "authorization_code"},
                   {"code", *code},
                   {"redirect_uri", s.redirect_uri},
                   {"code_verifier", f->pkce.verifier},
                   {"resource", f->resource}},
                  "");
  }

  // A sign-in page: a person opens the URL; their browser comes back to the
  // loopback listener, or the wait times out.
  void wait_for_user(std::shared_ptr<Flow> f) {
    f->settled = std::make_shared<std::atomic<bool>>(false);
    auto self = shared_from_this();
    auto listener = OAuthLoopbackListener::start(s.redirect_uri, [self, f](const std::string& url) {
      // On the listener's thread: continue on the HTTP loop, which may also
      // stop the listener (its own thread cannot).
      self->http->schedule(std::chrono::milliseconds(0), [self, f, url] {
        if (f->settled->exchange(true)) return;
        f->listener.reset();
        self->redeem(f, url);
      });
    });
    if (!listener.ok())
      return fail("its authorization server wants a person to sign in, and " + listener.error().message);
    f->listener = std::move(*listener);
    s.ask_user(f->authorize_url);
    http->schedule(std::chrono::milliseconds(s.user_timeout_ms), [self, f] {
      if (f->settled->exchange(true)) return;
      f->listener.reset();
      self->fail("nobody signed in at its authorization server within " +
                 std::to_string((self->s.user_timeout_ms + 999) / 1000) + " s (the browser never came back to " +
                 self->s.redirect_uri + ")");
    });
  }

  void refresh(std::shared_ptr<Flow> f, const OAuthTokens& old) {
    auto self = shared_from_this();
    token_request(f, {{"grant_type", "refresh_token"}, {"refresh_token", old.refresh_token}, {"resource", f->resource}},
                  old.refresh_token, [self, f](Status st) {
                    if (st.ok()) return self->finish(Status::Ok());
                    // Ahead of expiry the old token still works: the server's
                    // 401, when it comes, starts the full flow.
                    if (f->ahead) return self->finish(st);
                    // A refused refresh: start over with a new authorization.
                    self->s.store->forget_tokens(self->url);
                    self->set_access("");
                    self->grant(f);
                  });
  }

  // --- 6. the token ------------------------------------------------------
  // `keep_refresh`: the refresh token to keep when the answer brings none.
  // `nonce_retry`: this is the retry after a use_dpop_nonce answer.
  void token_request(std::shared_ptr<Flow> f, std::vector<std::pair<std::string, std::string>> fields,
                     const std::string& keep_refresh, std::function<void(Status)> then = nullptr,
                     bool nonce_retry = false) {
    const std::string endpoint = string_of(f->meta, "token_endpoint");
    http::HttpRequestSpec spec;
    spec.url = endpoint;
    spec.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
    const std::string grant_type = fields.front().second;
    if (!then) then = [self = shared_from_this()](Status st) { self->finish(std::move(st)); };
    if (Status st = authenticate(*f, spec, fields); !st.ok())
      return then(failure("the client could not authenticate: " + st.error().message));
    spec.body = form(fields);
    auto self = shared_from_this();
    std::optional<DpopKey> key;
    if (f->dpop) {
      key = dpop_key();
      std::string nonce;
      {
        std::lock_guard<std::mutex> lock(mu);
        nonce = as_nonce;
      }
      spec.headers.push_back({"DPoP", key->proof("POST", endpoint, nonce, "", now_s())});
    }
    send(std::move(spec),
         [self, f, endpoint, grant_type, keep_refresh, then, fields, key, nonce_retry](http::HttpResult r) {
           const json j = r.ok() ? body_json(r) : json();
           if (f->dpop && !r.header("dpop-nonce").empty()) {
             std::lock_guard<std::mutex> lock(self->mu);
             self->as_nonce = r.header("dpop-nonce");
           }
           if (f->dpop && r.status == 400 && string_of(body_json(r), "error") == "use_dpop_nonce" && !nonce_retry &&
               !r.header("dpop-nonce").empty()) {
             // RFC 9449 §8: the same request again, its proof carrying the nonce.
             auto again = fields;
             again.erase(std::remove_if(again.begin(), again.end(),
                                        [](const auto& kv) { return kv.first.rfind("client_", 0) == 0; }),
                         again.end());
             return self->token_request(f, std::move(again), keep_refresh, then, true);
           }
           const std::string access = string_of(j, "access_token");
           if (access.empty())
             return then(
                 self->failure("the token request (" + grant_type + ") to " + endpoint + " failed: " + oauth_error(r)));
           OAuthTokens t;
           t.issuer = f->issuer;
           t.access_token = access;
           t.refresh_token = string_of(j, "refresh_token");
           if (t.refresh_token.empty()) t.refresh_token = keep_refresh;
           t.scope = f->scope;
           if (j.contains("expires_in") && j["expires_in"].is_number_integer() && j["expires_in"].get<int64_t>() > 0) {
             t.lifetime = j["expires_in"].get<int64_t>();
             t.expires_at = self->wall_now() + t.lifetime;
           }
           if (key && string_of(j, "token_type") == "DPoP") {
             t.token_type = "DPoP";
             t.dpop_key = key->pem();
           }
           if (Status st = self->s.store->put_tokens(self->url, t); !st.ok())
             return then(self->failure("the token could not be stored: " + st.error().message));
           self->set_tokens(t, /*fresh=*/true);
           then(Status::Ok());
         });
  }
};

std::shared_ptr<McpOAuth> McpOAuth::create(http::HttpClient& http, std::string server_name, std::string server_url,
                                           OAuthSettings settings) {
  std::shared_ptr<McpOAuth> o(new McpOAuth());
  o->impl_ = std::make_shared<Impl>();
  o->impl_->http = &http;
  o->impl_->name = std::move(server_name);
  o->impl_->url = std::move(server_url);
  o->impl_->s = std::move(settings);
  if (!o->impl_->s.store) o->impl_->s.store = std::make_shared<OAuthTokenStore>("");
  if (auto t = o->impl_->stored()) {
    o->impl_->last_scope = t->scope;
    o->impl_->set_tokens(*t, /*fresh=*/false);
  }
  return o;
}

bool McpOAuth::refresh_due() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->refresh_due_locked();
}

void McpOAuth::refresh_ahead(std::function<void()> then) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->refresh_due_locked()) {
      // Nothing to wait for (any more).
    } else if (impl_->running) {
      if (impl_->waiting.size() < kMaxWaiting) {
        impl_->waiting.push_back([then](Status) { then(); });
        return;
      }
    } else {
      impl_->ahead_tried = true;
      impl_->running = true;
      impl_->waiting.push_back([then](Status) { then(); });
      then = nullptr;
    }
  }
  if (then) return then();
  auto f = std::make_shared<Flow>();
  f->ahead = true;
  impl_->start(std::move(f));
}

std::string McpOAuth::access_token() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->access;
}

std::vector<std::pair<std::string, std::string>> McpOAuth::request_headers(const std::string& method,
                                                                           const std::string& url, std::string* token) {
  std::string access, nonce;
  std::optional<DpopKey> key;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    access = impl_->access;
    key = impl_->dpop;
    nonce = impl_->rs_nonce;
  }
  if (token) *token = access;
  if (access.empty()) return {};
  if (!key) return {{"Authorization", "Bearer " + access}};
  return {{"Authorization", "DPoP " + access}, {"DPoP", key->proof(method, url, nonce, access, now_s())}};
}

void McpOAuth::challenged(int status, const std::string& www_authenticate, const std::string& used_token,
                          const std::string& dpop_nonce, std::function<void(Status)> done) {
  const std::string current = access_token();
  if (!current.empty() && current != used_token) return done(Status::Ok());  // renewed since: retry with it
  if (!current.empty() && !dpop_nonce.empty() && parse_www_authenticate(www_authenticate).error == "use_dpop_nonce") {
    // RFC 9449 §9: the MCP server wants its nonce in our proofs; the token is fine.
    bool fresh = false;
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      fresh = impl_->rs_nonce != dpop_nonce;
      impl_->rs_nonce = dpop_nonce;
    }
    if (fresh) return done(Status::Ok());  // outside the lock: the resend asks for headers
  }
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->running) {
      full = impl_->waiting.size() >= kMaxWaiting;
      if (!full) impl_->waiting.push_back(std::move(done));
      if (!full) return;
    } else {
      impl_->running = true;
      impl_->waiting.push_back(std::move(done));
    }
  }
  // Callbacks run outside the lock: they send requests, which ask for headers.
  if (full) return done(impl_->failure("too many requests are waiting for its authorization"));
  auto f = std::make_shared<Flow>();
  f->status = status;
  f->challenge = parse_www_authenticate(www_authenticate);
  impl_->start(std::move(f));
}

}  // namespace kaisha::mcp
