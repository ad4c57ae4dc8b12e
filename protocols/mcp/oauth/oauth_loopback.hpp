// OAuthLoopbackListener: where a person's browser lands after signing in
// (RFC 8252 §7.3, a loopback redirect URI). It serves the redirect URI's
// path on its loopback address and port, hands over the first request's full
// URL (with the code), and answers the browser that it may close the page.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::mcp {

class OAuthLoopbackListener {
 public:
  // Listens at `redirect_uri`, which must be http:// on 127.0.0.1, [::1] or
  // localhost with a port. `on_redirect` runs once, on the listener's
  // thread, with the URL the browser was sent to.
  static Result<std::unique_ptr<OAuthLoopbackListener>> start(const std::string& redirect_uri,
                                                              std::function<void(const std::string& url)> on_redirect);
  // Stops listening; must not be called from `on_redirect`.
  ~OAuthLoopbackListener();

  struct Impl;

 private:
  OAuthLoopbackListener() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::mcp
