// GetWebsite and internal addresses: a page on loopback is refused by
// default (by address and by a name resolving to it) and fetched when the
// config allows it; redirects are followed hop by hop, and a redirect from
// an allowed host to a refused one is refused.
#include <gtest/gtest.h>

#include "runtime/tools/builtin_tools.hpp"
#include "tests/runtime/http/test_server.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::call_sync;
using testing::TempDir;

class GetWebsiteAddressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The "internal service" a prompt-injected model would like to read.
    inner.server.Get("/secret", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body><p>instance credentials</p></body></html>", "text/html");
    });
    inner.start("127.0.0.1");
    // Another host (127.0.0.2), which the tests may allow on its own.
    outer.server.Get("/page", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html><body><p>public page</p></body></html>", "text/html");
    });
    outer.server.Get("/moved", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/page"); });
    outer.server.Get("/to-inner", [this](const httplib::Request&, httplib::Response& res) {
      res.set_redirect(inner.url("/secret"));
    });
    outer.server.Get("/loop", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/loop"); });
    outer.start("127.0.0.2");
  }

  std::shared_ptr<BuiltinTools> make(bool allow_all, std::vector<std::string> allowed = {}) {
    BuiltinToolsOptions o;
    o.workspace_root = root.path();
    o.switches = std::make_shared<ToolSwitches>();
    o.web.timeout_ms = 5000;
    o.web.allow_private_addresses = allow_all;
    o.web.allowed_private_networks = std::move(allowed);
    auto p = BuiltinTools::create(std::move(o));
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? *p : nullptr;
  }

  company::ToolResult get(BuiltinTools& tools, const std::string& url) {
    return call_sync(tools, "GetWebsite", {{"url", url}, {"output_type", "full_text"}});
  }

  TempDir root;
  http::testing::TestServer inner, outer;
};

TEST_F(GetWebsiteAddressTest, LoopbackIsRefusedByDefaultNamingUrlAndAddress) {
  auto tools = make(false);
  auto r = get(*tools, inner.url("/secret"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message.find("instance credentials"), std::string::npos);
  EXPECT_NE(r.message.find(inner.url("/secret")), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("127.0.0.1 is an internal address (loopback)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("tools.web.allow_private_addresses"), std::string::npos) << r.message;
  // A name that resolves to loopback is the same address.
  auto named = get(*tools, "http://localhost:" + std::to_string(inner.port) + "/secret");
  EXPECT_FALSE(named.ok);
  EXPECT_NE(named.message.find("internal address (loopback)"), std::string::npos) << named.message;
}

TEST_F(GetWebsiteAddressTest, AllowedWhenTheConfigSaysSo) {
  auto tools = make(true);
  auto r = get(*tools, inner.url("/secret"));
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output, "instance credentials");
}

TEST_F(GetWebsiteAddressTest, RedirectsAreFollowedAndEachHopIsChecked) {
  auto tools = make(false, {"127.0.0.2"});
  auto moved = get(*tools, outer.url("/moved"));
  ASSERT_TRUE(moved.ok) << moved.message;
  EXPECT_EQ(moved.output, "public page");

  auto r = get(*tools, outer.url("/to-inner"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message.find("instance credentials"), std::string::npos);
  EXPECT_NE(r.message.find(inner.url("/secret")), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("redirected from " + outer.url("/to-inner")), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("127.0.0.1 is an internal address"), std::string::npos) << r.message;
  // The allowed host itself is still refused on its other addresses.
  EXPECT_FALSE(get(*tools, inner.url("/secret")).ok);

  auto loop = get(*tools, outer.url("/loop"));
  EXPECT_FALSE(loop.ok);
  EXPECT_NE(loop.message.find("redirects more than 5 times"), std::string::npos) << loop.message;
}

TEST_F(GetWebsiteAddressTest, ABadAllowListIsAConfigError) {
  BuiltinToolsOptions o;
  o.workspace_root = root.path();
  o.web.allowed_private_networks = {"10.0.0.0/40"};
  auto p = BuiltinTools::create(std::move(o));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("tools.web.allow_private_addresses"), std::string::npos) << p.error().message;
  EXPECT_NE(p.error().message.find("10.0.0.0/40"), std::string::npos) << p.error().message;
}

}  // namespace
}  // namespace kaisha::tools
