#include "protocols/mcp/oauth/oauth_loopback.hpp"

#include <httplib.h>

#include <atomic>
#include <thread>

#include "protocols/mcp/oauth/oauth_discovery.hpp"

namespace kaisha::mcp {

struct OAuthLoopbackListener::Impl {
  httplib::Server server;
  std::thread thread;
  std::atomic<bool> delivered{false};
};

Result<std::unique_ptr<OAuthLoopbackListener>> OAuthLoopbackListener::start(
    const std::string& redirect_uri, std::function<void(const std::string& url)> on_redirect) {
  const UrlParts u = split_url(redirect_uri);
  if (redirect_uri.rfind("http://", 0) != 0)
    return Error{"oauth", "redirect_uri " + redirect_uri + " is not an http:// loopback URI kaisha can listen on"};
  const std::string authority = u.origin.substr(7);
  const size_t colon = authority.rfind(':');
  std::string host = colon == std::string::npos ? authority : authority.substr(0, colon);
  const int port = colon == std::string::npos ? 0 : std::atoi(authority.c_str() + colon + 1);
  if (host == "localhost") host = "127.0.0.1";
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  if ((host != "127.0.0.1" && host != "::1") || port <= 0 || port > 65535)
    return Error{"oauth",
                 "redirect_uri " + redirect_uri + " is not a loopback URI with a port (http://127.0.0.1:PORT/...)"};
  std::unique_ptr<OAuthLoopbackListener> l(new OAuthLoopbackListener());
  l->impl_ = std::make_unique<Impl>();
  Impl* impl = l->impl_.get();
  const std::string path = u.path.empty() ? "/" : u.path;
  impl->server.new_task_queue = [] { return new httplib::ThreadPool(2); };  // one browser, a favicon at most
  impl->server.Get(path, [impl, redirect_uri, on_redirect](const httplib::Request& req, httplib::Response& res) {
    std::string query;
    for (const auto& [k, v] : req.params)
      query += (query.empty() ? "" : "&") + httplib::detail::encode_query_param(k) + "=" +
               httplib::detail::encode_query_param(v);
    res.set_content("kaisha received the authorization response; you may close this page.\n", "text/plain");
    if (!impl->delivered.exchange(true)) on_redirect(redirect_uri.substr(0, redirect_uri.find('?')) + "?" + query);
  });
  if (!impl->server.bind_to_port(host, port))
    return Error{"oauth",
                 "cannot listen on " + host + ":" + std::to_string(port) + " for the redirect to " + redirect_uri};
  impl->thread = std::thread([impl] { impl->server.listen_after_bind(); });
  return l;
}

OAuthLoopbackListener::~OAuthLoopbackListener() {
  if (!impl_) return;
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace kaisha::mcp
