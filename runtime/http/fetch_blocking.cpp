#include "runtime/http/fetch_blocking.hpp"

#include "runtime/http/transfer.hpp"

namespace kaisha::http {

HttpResult fetch_blocking(const HttpRequestSpec& req, const HttpOptions& opts) {
  detail::ensure_curl_initialized();
  detail::Transfer t(0, req, opts, HttpCallbacks{});
  CURL* h = curl_easy_init();
  if (!h) return t.abandon(TransportError::other, "curl_easy_init failed");
  HttpResult r = t.attach(h) ? t.finish(curl_easy_perform(h)) : t.finish(CURLE_OK);
  t.detach();
  curl_easy_cleanup(h);
  return r;
}

}  // namespace kaisha::http
