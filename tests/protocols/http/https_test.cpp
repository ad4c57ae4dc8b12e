// HttpServer serving HTTPS with a self-signed certificate made at test time
// (openssl CLI), and the rule that a bearer token off loopback needs TLS.
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/http/http_server.hpp"
#include "tests/protocols/http/loopback_client.hpp"

namespace kaisha::protocols {
namespace {

namespace fs = std::filesystem;

struct SelfSigned {
  fs::path dir;
  std::string cert, key;
  bool ok = false;

  SelfSigned() {
    dir = fs::temp_directory_path() / ("kaisha-tls-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    cert = (dir / "cert.pem").string();
    key = (dir / "key.pem").string();
    const std::string cmd =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
        "-addext subjectAltName=IP:127.0.0.1 -keyout '" +
        key + "' -out '" + cert + "' >/dev/null 2>&1";
    ok = std::system(cmd.c_str()) == 0 && fs::exists(cert) && fs::exists(key);
  }
  ~SelfSigned() { fs::remove_all(dir); }
};

TEST(Https, ServesOverTlsWithTheConfiguredCertificate) {
  SelfSigned tls;
  if (!tls.ok) GTEST_SKIP() << "the openssl CLI could not make a certificate";
  HttpServerOptions o;
  o.tls_cert_file = tls.cert;
  o.tls_key_file = tls.key;
  o.bearer_token = "s3cret";
  HttpServer server(o);
  server.route("POST", "/echo", [](const HttpRequest& q, HttpResponse& r) { r.set_json(200, json{{"body", q.body}}); });
  auto port = server.start();
  ASSERT_TRUE(port.ok()) << port.error().message;
  EXPECT_EQ(server.base_url().rfind("https://127.0.0.1:", 0), 0u) << server.base_url();

  httplib::SSLClient client("127.0.0.1", *port);
  client.set_ca_cert_path(tls.cert.c_str());
  client.enable_server_certificate_verification(true);
  client.set_bearer_token_auth("s3cret");
  for (int i = 0; i < 3; ++i) {  // keep-alive over one TLS connection
    auto r = client.Post("/echo", std::string(20000, 'x') + std::to_string(i), "text/plain");
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(json::parse(r->body)["body"].get<std::string>().size(), 20001u);
  }
  // Plain HTTP to the TLS port gets no HTTP answer.
  std::string plain =
      kaisha::testing::request_from("127.0.0.1", *port, "GET", "/echo", "", "", std::chrono::seconds(15));
  EXPECT_EQ(kaisha::testing::status_of(plain), 0) << plain;
}

// An event stream over TLS: the stream loop writes through the connection's
// TLS session, in order, including events larger than a socket buffer.
TEST(Https, EventStreamsAreCarriedOverTls) {
  SelfSigned tls;
  if (!tls.ok) GTEST_SKIP() << "the openssl CLI could not make a certificate";
  HttpServerOptions o;
  o.tls_cert_file = tls.cert;
  o.tls_key_file = tls.key;
  HttpServer server(o);
  std::thread producer;
  const std::string big(3 << 20, 'z');
  server.route("GET", "/events", [&](const HttpRequest&, HttpResponse& r) {
    auto w = r.start_sse();
    producer = std::thread([w, &big] {
      w->send("one");
      w->send(big);
      w->send("three");
      w->close();
    });
  });
  ASSERT_TRUE(server.start().ok());
  httplib::SSLClient client("127.0.0.1", server.port());
  client.set_ca_cert_path(tls.cert.c_str());
  client.enable_server_certificate_verification(true);
  auto r = client.Get("/events");
  producer.join();
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body == "data: one\n\ndata: " + big + "\n\ndata: three\n\n") << r->body.size() << " bytes";
}

TEST(Https, BadCertificateFilesAreAClearStartError) {
  SelfSigned tls;
  if (!tls.ok) GTEST_SKIP() << "the openssl CLI could not make a certificate";
  HttpServerOptions o;
  o.tls_cert_file = tls.cert;
  o.tls_key_file = (tls.dir / "absent.pem").string();
  auto r = HttpServer(o).start();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "tls");
  EXPECT_NE(r.error().message.find("cannot load the TLS key"), std::string::npos) << r.error().message;
  o.tls_key_file.clear();
  auto half = HttpServer(o).start();
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().message.find("both a certificate file and a key file"), std::string::npos);
}

// Off loopback a token would cross the network: plain HTTP is refused unless
// TLS is served here or a TLS-terminating proxy is declared in front.
TEST(Https, ATokenOffLoopbackNeedsTlsOrADeclaredProxy) {
  HttpServerOptions o;
  o.host = "0.0.0.0";
  o.bearer_token = "s3cret";
  auto plain = HttpServer(o).start();
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.error().message.find("over plain HTTP"), std::string::npos) << plain.error().message;
  o.behind_tls_proxy = true;
  HttpServer proxied(o);
  EXPECT_TRUE(proxied.start().ok());
  SelfSigned tls;
  if (!tls.ok) return;
  o.behind_tls_proxy = false;
  o.tls_cert_file = tls.cert;
  o.tls_key_file = tls.key;
  HttpServer https(o);
  EXPECT_TRUE(https.start().ok());
}

}  // namespace
}  // namespace kaisha::protocols
