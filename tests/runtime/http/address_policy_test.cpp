// Which addresses a policy lets a request connect to, and what HttpClient
// does with a refused one: every internal form refused by default (IPv4,
// IPv6, IPv4 inside IPv6), public ones allowed, allow-lists honoured.
#include "runtime/http/address_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <future>

#include <gtest/gtest.h>

#include "runtime/http/http_client.hpp"
#include "tests/runtime/http/test_server.hpp"

namespace kaisha::http {
namespace {

// The sockaddr for a numeric address.
sockaddr_storage addr(const std::string& text) {
  sockaddr_storage ss{};
  auto* in = reinterpret_cast<sockaddr_in*>(&ss);
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, text.c_str(), &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
  } else {
    EXPECT_EQ(inet_pton(AF_INET6, text.c_str(), &in6->sin6_addr), 1) << text;
    in6->sin6_family = AF_INET6;
  }
  return ss;
}

std::string check(const AddressPolicy& p, const std::string& text) {
  sockaddr_storage ss = addr(text);
  return p.check(reinterpret_cast<const sockaddr*>(&ss));
}

TEST(AddressPolicy, RefusesEveryInternalAddressByDefault) {
  AddressPolicy p;
  for (const char* a : {"127.0.0.1", "127.255.0.9", "::1", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254",
                        "192.168.1.1", "169.254.169.254", "169.254.0.1", "0.0.0.0", "::", "fc00::1", "fd12:3456::1",
                        "fe80::1", "100.64.0.1", "224.0.0.1", "255.255.255.255",
                        // IPv4 inside IPv6: mapped, compatible, NAT64, 6to4
                        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.1.2.3", "::127.0.0.1",
                        "64:ff9b::a9fe:a9fe", "2002:7f00:1::1"}) {
    std::string why = check(p, a);
    EXPECT_FALSE(why.empty()) << a << " was allowed";
    EXPECT_NE(why.find("internal address"), std::string::npos) << why;
  }
  EXPECT_EQ(check(p, "169.254.169.254"), "169.254.169.254 is an internal address (link-local)");
  EXPECT_EQ(check(p, "::ffff:127.0.0.1"), "::ffff:127.0.0.1 is an internal address (loopback (IPv4 in IPv6))");
}

TEST(AddressPolicy, AllowsPublicAddresses) {
  AddressPolicy p;
  for (const char* a : {"93.184.216.34", "8.8.8.8", "172.15.255.255", "172.32.0.1", "192.169.0.1", "11.0.0.1",
                        "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"})
    EXPECT_EQ(check(p, a), "") << a;
}

TEST(AddressPolicy, AllowListsAndAllowAll) {
  auto one = IpNetwork::parse("127.0.0.2");
  auto net = IpNetwork::parse("10.1.0.0/16");
  auto v6 = IpNetwork::parse("fd00::/8");
  ASSERT_TRUE(one && net && v6);
  AddressPolicy p(false, {*one, *net, *v6});
  EXPECT_EQ(check(p, "127.0.0.2"), "");
  EXPECT_NE(check(p, "127.0.0.1"), "");
  EXPECT_EQ(check(p, "10.1.200.3"), "");
  EXPECT_NE(check(p, "10.2.0.1"), "");
  EXPECT_EQ(check(p, "fd01::1"), "");
  EXPECT_NE(check(p, "fc00::1"), "");
  AddressPolicy all(true, {});
  EXPECT_EQ(check(all, "127.0.0.1"), "");
  EXPECT_EQ(check(all, "169.254.169.254"), "");
}

TEST(AddressPolicy, BadNetworksAreErrors) {
  for (const char* bad : {"", "localhost", "10.0.0.0/33", "10.0.0.0/", "fd00::/129", "10.0.0.0/x", "1.2.3"}) {
    auto n = IpNetwork::parse(bad);
    EXPECT_FALSE(n.ok()) << bad;
  }
}

HttpResult fetch(HttpClient& client, const std::string& url, std::shared_ptr<const AddressPolicy> policy) {
  HttpRequestSpec req;
  req.method = "GET";
  req.url = url;
  HttpOptions opts;
  opts.address_policy = std::move(policy);
  auto p = std::make_shared<std::promise<HttpResult>>();
  auto f = p->get_future();
  HttpCallbacks cb;
  cb.on_done = [p](HttpResult r) { p->set_value(std::move(r)); };
  client.submit(std::move(req), opts, std::move(cb));
  if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "request did not complete";
    return {};
  }
  return f.get();
}

// The check is on the address connected to, so a name that resolves to an
// internal address is refused as well, and a pooled connection opened
// without a policy is not reused by a request with one.
TEST(AddressPolicy, HttpClientRefusesTheConnectionAndNamesTheAddress) {
  testing::TestServer s;
  s.server.Get("/secret",
               [](const httplib::Request&, httplib::Response& res) { res.set_content("s3cret", "text/plain"); });
  s.start();
  HttpClient client;
  HttpResult plain = fetch(client, s.url("/secret"), nullptr);  // leaves a pooled connection
  ASSERT_TRUE(plain.ok()) << plain.error_message;

  auto strict = std::make_shared<AddressPolicy>();
  HttpResult refused = fetch(client, s.url("/secret"), strict);
  EXPECT_EQ(refused.error, TransportError::refused);
  EXPECT_EQ(refused.body, "");
  EXPECT_NE(refused.error_message.find(s.url("/secret")), std::string::npos) << refused.error_message;
  EXPECT_NE(refused.error_message.find("127.0.0.1 is an internal address (loopback)"), std::string::npos)
      << refused.error_message;

  HttpResult by_name = fetch(client, "http://localhost:" + std::to_string(s.port) + "/secret", strict);
  EXPECT_EQ(by_name.error, TransportError::refused) << by_name.error_message;

  HttpResult allowed = fetch(client, s.url("/secret"), std::make_shared<AddressPolicy>(true, std::vector<IpNetwork>{}));
  EXPECT_TRUE(allowed.ok()) << allowed.error_message;
  EXPECT_EQ(allowed.body, "s3cret");
}

}  // namespace
}  // namespace kaisha::http
