// McpOAuth against a local authorization server: a stored refresh token is
// used before a new authorization, a refused refresh falls back to one, a
// token near its expiry is refreshed before the request (on an injected
// clock), and a server without PKCE S256 or without metadata is refused with
// an error that names what failed.
#include "tests/loopback_port.hpp"
#include "protocols/mcp/oauth/mcp_oauth.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "../../runtime/http/test_server.hpp"
#include "protocols/mcp/client/mcp_http_client_transport.hpp"
#include "protocols/mcp/oauth/oauth_pkce.hpp"
#include "protocols/mcp/oauth/oauth_redirect.hpp"

namespace kaisha::mcp {
namespace {

using http::testing::TestServer;

// One host is the MCP server (only its metadata is served here), its own
// authorization server, and the redirect target.
struct OAuthTestServer {
  TestServer srv;
  std::atomic<int> authorize_hits{0};
  std::atomic<bool> refresh_ok{true};
  std::atomic<bool> advertise_s256{true};
  std::atomic<bool> serve_as_metadata{true};
  std::atomic<bool> show_sign_in_page{false};  // /authorize wants a person
  std::mutex mu;
  std::vector<std::map<std::string, std::string>> token_requests;
  std::vector<std::string> mcp_authorizations;  // the Authorization header of each POST /mcp
  std::string challenge;                        // code_challenge of the last authorization request

  OAuthTestServer() {
    srv.server.Get("/.well-known/oauth-protected-resource/mcp",
                   [this](const httplib::Request&, httplib::Response& res) {
                     res.set_content(json{{"resource", srv.url("/mcp")}, {"authorization_servers", {issuer()}}}.dump(),
                                     "application/json");
                   });
    srv.server.Get("/.well-known/oauth-authorization-server", [this](const httplib::Request&, httplib::Response& res) {
      if (!serve_as_metadata) {
        res.status = 404;
        return;
      }
      json m = {{"issuer", issuer()},
                {"authorization_endpoint", srv.url("/authorize")},
                {"token_endpoint", srv.url("/token")},
                {"token_endpoint_auth_methods_supported", {"none"}}};
      if (advertise_s256) m["code_challenge_methods_supported"] = {"S256"};
      res.set_content(m.dump(), "application/json");
    });
    srv.server.Get("/authorize", [this](const httplib::Request& req, httplib::Response& res) {
      ++authorize_hits;
      {
        std::lock_guard<std::mutex> lock(mu);
        challenge = req.get_param_value("code_challenge");
      }
      if (show_sign_in_page) {
        res.set_content("<form>sign in</form>", "text/html");
        return;
      }
      res.status = 302;
      res.set_header("Location",
                     req.get_param_value("redirect_uri") + "?code=c1&state=" + req.get_param_value("state"));
    });
    srv.server.Post("/token", [this](const httplib::Request& req, httplib::Response& res) {
      const auto form = parse_query(req.body);
      {
        std::lock_guard<std::mutex> lock(mu);
        token_requests.push_back(form);
      }
      const std::string grant = form.count("grant_type") ? form.at("grant_type") : "";
      if (grant == "refresh_token" && refresh_ok) {
        res.set_content(R"({"access_token":"at-refreshed","token_type":"Bearer","expires_in":60})", "application/json");
      } else if (grant == "authorization_code") {
        res.set_content(R"({"access_token":"at-new","token_type":"Bearer","refresh_token":"rt2"})", "application/json");
      } else {
        res.status = 400;
        res.set_content(R"({"error":"invalid_grant","error_description":"refresh token revoked"})", "application/json");
      }
    });
    // The MCP server itself: it takes only the refreshed token.
    srv.server.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string auth = req.get_header_value("Authorization");
      {
        std::lock_guard<std::mutex> lock(mu);
        mcp_authorizations.push_back(auth);
      }
      if (auth != "Bearer at-refreshed") {
        res.status = 401;
        res.set_header("WWW-Authenticate",
                       "Bearer resource_metadata=\"" + srv.url("/.well-known/oauth-protected-resource/mcp") + "\"");
        return;
      }
      const json id = json::parse(req.body).value("id", json());
      res.set_content(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", json::object()}}.dump(), "application/json");
    });
    srv.start();
  }
  std::string issuer() const { return "http://127.0.0.1:" + std::to_string(srv.port); }
  std::vector<std::map<std::string, std::string>> tokens() {
    std::lock_guard<std::mutex> lock(mu);
    return token_requests;
  }
};

struct McpOAuthFlow : ::testing::Test {
  OAuthTestServer as;
  http::HttpClient http;
  std::shared_ptr<OAuthTokenStore> store = std::make_shared<OAuthTokenStore>("");
  // The injected clocks run this far ahead of the real ones.
  std::atomic<int64_t> steady_ahead_s{0}, wall_ahead_s{0};

  std::shared_ptr<McpOAuth> oauth(std::function<void(const std::string&)> ask_user = nullptr,
                                  std::string redirect_uri = "", int64_t user_timeout_ms = 300'000) {
    OAuthSettings s;
    s.user_timeout_ms = user_timeout_ms;
    s.client_id = "kaisha-test";
    s.redirect_uri = redirect_uri.empty() ? as.srv.url("/callback") : redirect_uri;
    s.ask_user = std::move(ask_user);
    s.store = store;
    s.steady_clock = [this] { return std::chrono::steady_clock::now() + std::chrono::seconds(steady_ahead_s.load()); };
    s.wall_clock = [this] {
      return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count() +
             wall_ahead_s.load();
    };
    return McpOAuth::create(http, "'docs'", as.srv.url("/mcp"), s);
  }
  Status challenge(McpOAuth& o, int status, const std::string& used) {
    std::promise<Status> p;
    auto f = p.get_future();
    o.challenged(status, "Bearer resource_metadata=\"" + as.srv.url("/.well-known/oauth-protected-resource/mcp") + "\"",
                 used, "", [&p](Status s) { p.set_value(std::move(s)); });
    if (f.wait_for(std::chrono::seconds(20)) != std::future_status::ready) return Error{"test", "no outcome in 20 s"};
    return f.get();
  }
  void store_old_tokens() {
    ASSERT_TRUE(store->put_tokens(as.srv.url("/mcp"), {as.issuer(), "at-old", "rt1", "", 1, "Bearer", ""}).ok());
  }
  // A one-hour token stored with `left_s` seconds to go.
  void store_tokens_expiring_in(int64_t left_s, const std::string& refresh = "rt1") {
    const int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    ASSERT_TRUE(
        store->put_tokens(as.srv.url("/mcp"), {as.issuer(), "at-old", refresh, "", now + left_s, "Bearer", "", 3600})
            .ok());
  }
  // refresh_ahead(), waited for.
  void refresh_ahead(McpOAuth& o) {
    std::promise<void> p;
    auto f = p.get_future();
    o.refresh_ahead([&p] { p.set_value(); });
    ASSERT_EQ(f.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  }
};

TEST_F(McpOAuthFlow, AStoredTokenNearItsExpiryIsRefreshedBeforeTheRequest) {
  store_tokens_expiring_in(30);  // within the last minute of an hour
  auto o = oauth();
  EXPECT_TRUE(o->refresh_due());
  refresh_ahead(*o);
  EXPECT_EQ(o->access_token(), "at-refreshed");
  EXPECT_EQ(as.authorize_hits, 0);
  const auto t = as.tokens();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].at("grant_type"), "refresh_token");
  EXPECT_EQ(t[0].at("refresh_token"), "rt1");
  EXPECT_FALSE(o->refresh_due());  // the new token has a minute to go, its margin is 6 s
  const auto stored = store->tokens(as.srv.url("/mcp"));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->lifetime, 60);
  EXPECT_GT(stored->expires_at, 0);
}

TEST_F(McpOAuthFlow, AFarExpiryOrNoRefreshTokenMeansNothingToDoAhead) {
  store_tokens_expiring_in(3000);
  EXPECT_FALSE(oauth()->refresh_due());
  store_tokens_expiring_in(30, "");
  EXPECT_FALSE(oauth()->refresh_due());  // nothing to refresh with: the 401 path renews it
  EXPECT_TRUE(as.tokens().empty());
}

// The lifetime runs on the monotonic clock: a jump of the wall clock does
// not make a token due, the time passing does.
TEST_F(McpOAuthFlow, ATokenIsRenewedAheadOfItsExpiryOnTheMonotonicClock) {
  store_old_tokens();
  auto o = oauth();
  ASSERT_TRUE(challenge(*o, 401, "at-old").ok());  // at-refreshed, expires_in 60: due 6 s before
  ASSERT_EQ(o->access_token(), "at-refreshed");
  wall_ahead_s = 3600;
  EXPECT_FALSE(o->refresh_due());
  steady_ahead_s = 40;
  EXPECT_FALSE(o->refresh_due());
  steady_ahead_s = 55;
  EXPECT_TRUE(o->refresh_due());
  refresh_ahead(*o);
  const auto t = as.tokens();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].at("grant_type"), "refresh_token");
  EXPECT_FALSE(o->refresh_due());  // a new minute from now
}

TEST_F(McpOAuthFlow, AFailedRefreshAheadLeavesTheTokenForThe401Path) {
  store_tokens_expiring_in(30);
  as.refresh_ok = false;
  auto o = oauth();
  ASSERT_TRUE(o->refresh_due());
  refresh_ahead(*o);
  EXPECT_EQ(o->access_token(), "at-old");  // still valid for half a minute
  EXPECT_EQ(as.authorize_hits, 0);         // no new authorization ahead of time
  EXPECT_FALSE(o->refresh_due());          // tried once for this token
  // The server's 401 then runs the whole flow: refresh, then a new authorization.
  ASSERT_TRUE(challenge(*o, 401, "at-old").ok());
  EXPECT_EQ(o->access_token(), "at-new");
  EXPECT_EQ(as.authorize_hits, 1);
}

// Through the HTTP transport: the first request already carries the
// refreshed token, so the MCP server never sees the expiring one.
TEST_F(McpOAuthFlow, TheTransportRefreshesAheadBeforeItsRequestGoes) {
  store_tokens_expiring_in(30);
  McpHttpClientOptions opt;
  opt.oauth = oauth();
  McpHttpClientTransport t(http, as.srv.url("/mcp"), opt);
  std::promise<json> answer;
  McpClientTransport::Handlers h;
  h.on_message = [&answer](const json& m) { answer.set_value(m); };
  ASSERT_TRUE(t.start(h).ok());
  t.set_protocol_version("2025-11-25");
  t.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}});
  auto f = answer.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_TRUE(f.get().contains("result"));
  t.close();
  std::lock_guard<std::mutex> lock(as.mu);
  EXPECT_EQ(as.mcp_authorizations, std::vector<std::string>{"Bearer at-refreshed"});
}

TEST_F(McpOAuthFlow, AStoredRefreshTokenIsUsedBeforeANewAuthorization) {
  store_old_tokens();
  auto o = oauth();
  EXPECT_EQ(o->access_token(), "at-old");
  Status s = challenge(*o, 401, "at-old");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(o->access_token(), "at-refreshed");
  EXPECT_EQ(as.authorize_hits, 0);
  const auto t = as.tokens();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].at("grant_type"), "refresh_token");
  EXPECT_EQ(t[0].at("refresh_token"), "rt1");
  EXPECT_EQ(t[0].at("resource"), as.srv.url("/mcp"));
  EXPECT_EQ(store->tokens(as.srv.url("/mcp"))->refresh_token, "rt1");  // kept: the answer brought none
}

TEST_F(McpOAuthFlow, ARefusedRefreshFallsBackToANewAuthorizationWithPkce) {
  store_old_tokens();
  as.refresh_ok = false;
  auto o = oauth();
  Status s = challenge(*o, 401, "at-old");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(o->access_token(), "at-new");
  EXPECT_EQ(as.authorize_hits, 1);
  const auto t = as.tokens();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].at("grant_type"), "authorization_code");
  EXPECT_EQ(t[1].at("code"), "c1");
  EXPECT_EQ(t[1].at("client_id"), "kaisha-test");
  std::lock_guard<std::mutex> lock(as.mu);
  EXPECT_EQ(as.challenge, s256_challenge(t[1].at("code_verifier")));
  EXPECT_EQ(store->tokens(as.srv.url("/mcp"))->refresh_token, "rt2");
}

TEST_F(McpOAuthFlow, ATokenRenewedMeanwhileIsRetriedWithoutAnotherFlow) {
  store_old_tokens();
  auto o = oauth();
  ASSERT_TRUE(challenge(*o, 401, "at-older-still").ok());
  EXPECT_TRUE(as.tokens().empty());
}

TEST_F(McpOAuthFlow, AnAuthorizationServerWithoutS256IsRefused) {
  as.advertise_s256 = false;
  auto o = oauth();
  Status s = challenge(*o, 401, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("MCP server 'docs' (" + as.srv.url("/mcp") + ") demands authorization"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("S256"), std::string::npos) << s.error().message;
  EXPECT_EQ(as.authorize_hits, 0);
}

TEST_F(McpOAuthFlow, MissingMetadataNamesEveryUrlTriedAndItsStatus) {
  as.serve_as_metadata = false;
  auto o = oauth();
  Status s = challenge(*o, 401, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(as.issuer() + "/.well-known/oauth-authorization-server (HTTP 404)"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find(as.issuer() + "/.well-known/openid-configuration (HTTP 404)"), std::string::npos)
      << s.error().message;
}

TEST_F(McpOAuthFlow, ASignInPageIsHandedToAPersonAndTheBrowsersRedirectIsAwaited) {
  as.show_sign_in_page = true;
  const int port = kaisha::test::unused_loopback_port();
  const std::string redirect = "http://127.0.0.1:" + std::to_string(port) + "/oauth/callback";
  std::thread browser;
  std::string shown;
  auto o = oauth(
      [&](const std::string& url) {
        shown = url;
        // The person signs in; their browser is sent back to kaisha.
        const std::string state = parse_query(query_of(url)).at("state");
        browser = std::thread([port, state] {
          httplib::Client c("127.0.0.1", port);
          c.Get("/oauth/callback?code=c1&state=" + state);
        });
      },
      redirect);
  Status s = challenge(*o, 401, "");
  if (browser.joinable()) browser.join();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(shown.rfind(as.srv.url("/authorize?"), 0), 0u) << shown;
  EXPECT_EQ(o->access_token(), "at-new");
  const auto t = as.tokens();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].at("redirect_uri"), redirect);
}

TEST_F(McpOAuthFlow, NobodySigningInTimesOutWithAnErrorThatSaysSo) {
  as.show_sign_in_page = true;
  const std::string redirect = "http://127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port()) + "/cb";
  auto o = oauth([](const std::string&) {}, redirect, 300);
  Status s = challenge(*o, 401, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("nobody signed in"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find(redirect), std::string::npos) << s.error().message;
}

TEST_F(McpOAuthFlow, WithoutAPersonASignInPageIsAnErrorThatSaysSo) {
  as.show_sign_in_page = true;
  auto o = oauth();
  Status s = challenge(*o, 401, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("wants a person to sign in"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace kaisha::mcp
