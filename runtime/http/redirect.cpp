#include "runtime/http/redirect.hpp"

#include <curl/curl.h>

#include <memory>

namespace kaisha::http {

bool is_redirect_status(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

Result<std::string> redirect_target(const std::string& from_url, const std::string& location) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), &curl_url_cleanup);
  if (!u) return Error{"http", "out of memory parsing a redirect"};
  if (curl_url_set(u.get(), CURLUPART_URL, from_url.c_str(), 0) != CURLUE_OK)
    return Error{"http", "cannot parse the URL '" + from_url + "'"};
  // Set on a handle that holds a URL, a relative reference is resolved against it.
  if (curl_url_set(u.get(), CURLUPART_URL, location.c_str(), 0) != CURLUE_OK)
    return Error{"http", from_url + " redirects to '" + location + "', which is not a valid URL"};
  char* scheme = nullptr;
  char* full = nullptr;
  curl_url_get(u.get(), CURLUPART_SCHEME, &scheme, 0);
  curl_url_get(u.get(), CURLUPART_URL, &full, 0);
  std::string s = scheme ? scheme : "", out = full ? full : "";
  curl_free(scheme);
  curl_free(full);
  if (s != "http" && s != "https")
    return Error{"http", from_url + " redirects to '" + location + "'; only http:// and https:// are followed"};
  return out;
}

}  // namespace kaisha::http
