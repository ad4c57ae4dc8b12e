#include "runtime/http/transfer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <mutex>

#include <sys/socket.h>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::http::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// A proxy from the environment must never see loopback traffic (local model
// servers, the mock LLM in tests), but stays in use for remote providers.
const std::string& no_proxy_list() {
  static const std::string list = [] {
    std::string s;
    for (const char* var : {"no_proxy", "NO_PROXY"}) {
      if (const char* v = std::getenv(var); v && *v) {
        s = v;
        break;
      }
    }
    if (!s.empty()) s += ",";
    s += "localhost,127.0.0.1,::1";
    return s;
  }();
  return list;
}

}  // namespace

void ensure_curl_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Transfer::Transfer(uint64_t id, HttpRequestSpec req, HttpOptions opts, HttpCallbacks cb)
    : id_(id), req_(std::move(req)), opts_(opts), cb_(std::move(cb)) {}

Transfer::~Transfer() {
  if (header_list_) curl_slist_free_all(header_list_);
}

std::string Transfer::where() const { return req_.method + " " + req_.url; }

bool Transfer::attach(CURL* easy) {
  easy_ = easy;
  if (req_.url.empty()) {
    setup_error_ = "request has an empty URL";
    return false;
  }
  std::string method = req_.method.empty() ? std::string("GET") : req_.method;
  for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  req_.method = method;

  curl_easy_setopt(easy, CURLOPT_URL, req_.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PRIVATE, this);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // we run in a multi-threaded process
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf_);
  curl_easy_setopt(easy, CURLOPT_NOPROXY, no_proxy_list().c_str());
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever curl can decode
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  if (opts_.timeout_ms > 0) curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(opts_.timeout_ms));
  if (opts_.connect_timeout_ms > 0)
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opts_.connect_timeout_ms));

  if (method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
  } else if (method == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else {
    if (method != "POST") curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.c_str());
    // The body lives in req_, which outlives the transfer; curl does not copy.
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req_.body.size()));
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, req_.body.c_str());
  }

  for (const auto& [name, value] : req_.headers) {
    const std::string line = value.empty() ? name + ";" : name + ": " + value;
    header_list_ = curl_slist_append(header_list_, line.c_str());
  }
  // No "Expect: 100-continue" round trip before large request bodies.
  header_list_ = curl_slist_append(header_list_, "Expect:");
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, header_list_);

  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &Transfer::on_header_line);
  if (opts_.address_policy) {
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &Transfer::open_socket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");  // no proxy: the address seen is the server's
    curl_easy_setopt(easy, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
  }
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, this);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &Transfer::on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
  return true;
}

size_t Transfer::on_header_line(char* data, size_t size, size_t n, void* self) {
  auto* t = static_cast<Transfer*>(self);
  const size_t len = size * n;
  std::string_view line = trim(std::string_view(data, len));
  if (line.starts_with("HTTP/")) {
    // A new response (after a 1xx interim one): start over.
    const auto sp = line.find(' ');
    t->result_.status = sp == std::string_view::npos ? 0 : std::atoi(std::string(line.substr(sp + 1, 3)).c_str());
    t->result_.headers.clear();
    t->headers_done_ = false;
    return len;
  }
  if (line.empty()) {
    if (t->result_.status >= 200) t->headers_complete();
    return len;
  }
  if (t->headers_done_) return len;  // trailers after a chunked body
  const auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    t->result_.headers[ascii_lower(trim(line.substr(0, colon)))] = std::string(trim(line.substr(colon + 1)));
  }
  return len;
}

void Transfer::headers_complete() {
  if (headers_done_) return;
  headers_done_ = true;
  if (!cb_.on_headers) return;
  try {
    cb_.on_headers(result_.status, result_.headers);
  } catch (const std::exception& e) {
    callback_error_ = std::string("on_headers threw: ") + e.what();
  } catch (...) {
    callback_error_ = "on_headers threw";
  }
}

bool Transfer::streaming_body() const { return cb_.on_data && result_.status >= 200 && result_.status < 300; }

size_t Transfer::on_body(char* data, size_t size, size_t n, void* self) {
  auto* t = static_cast<Transfer*>(self);
  const size_t len = size * n;
  if (!t->callback_error_.empty()) return 0;  // abort: a callback failed
  t->received_ += len;
  if (t->opts_.max_response_bytes > 0 && t->received_ > t->opts_.max_response_bytes) {
    t->too_large_ = true;
    return 0;  // makes curl abort with CURLE_WRITE_ERROR
  }
  if (!t->headers_done_ && t->result_.status >= 200) t->headers_complete();
  if (!t->streaming_body()) {
    t->result_.body.append(data, len);
    return len;
  }
  try {
    t->cb_.on_data(std::string_view(data, len));
  } catch (const std::exception& e) {
    t->callback_error_ = std::string("on_data threw: ") + e.what();
    return 0;
  } catch (...) {
    t->callback_error_ = "on_data threw";
    return 0;
  }
  return len;
}

curl_socket_t Transfer::open_socket(void* self, curlsocktype, curl_sockaddr* addr) {
  auto* t = static_cast<Transfer*>(self);
  std::string why = t->opts_.address_policy->check(&addr->addr);
  if (!why.empty()) {
    t->refused_ = why;
    return CURL_SOCKET_BAD;
  }
  return socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
}

HttpResult Transfer::abandon(TransportError why, std::string message) {
  result_.error = why;
  result_.error_message = where() + ": " + message;
  return std::move(result_);
}

HttpResult Transfer::finish(CURLcode code) {
  if (!setup_error_.empty()) return abandon(TransportError::other, setup_error_);
  if (!callback_error_.empty()) return abandon(TransportError::other, callback_error_);
  if (!refused_.empty() && code != CURLE_OK)
    return abandon(TransportError::refused, "connection refused by the address policy: " + refused_);
  if (code == CURLE_OK) {
    if (!headers_done_ && result_.status >= 200) headers_complete();
    return std::move(result_);
  }
  const std::string detail = errbuf_[0] ? std::string(errbuf_) : std::string(curl_easy_strerror(code));
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return abandon(TransportError::timeout,
                     "timed out (limit " + std::to_string(opts_.timeout_ms) + " ms): " + detail);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SSL_CONNECT_ERROR:
      return abandon(TransportError::connect, "cannot connect: " + detail);
    case CURLE_WRITE_ERROR:
      if (too_large_)
        return abandon(TransportError::too_large,
                       "response body exceeded " + std::to_string(opts_.max_response_bytes) + " bytes");
      [[fallthrough]];
    default:
      return abandon(TransportError::other, detail);
  }
}

}  // namespace kaisha::http::detail
