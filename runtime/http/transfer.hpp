// Internal to kaisha_http: the state of one HTTP transfer, shared by the
// multi-handle loop (HttpClient) and fetch_blocking. It configures a curl easy
// handle from an HttpRequestSpec, collects headers and body through curl's
// callbacks, and turns curl's outcome into an HttpResult.
#pragma once

#include <cstdint>
#include <string>

#include <curl/curl.h>

#include "runtime/http/http_client.hpp"

namespace kaisha::http::detail {

// curl_global_init, once per process, before the first handle is made.
void ensure_curl_initialized();

class Transfer {
 public:
  Transfer(uint64_t id, HttpRequestSpec req, HttpOptions opts, HttpCallbacks cb);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  uint64_t id() const { return id_; }
  CURL* easy() const { return easy_; }

  // Configures `easy` (freshly made or reset) for this transfer. On bad input
  // returns false; finish() then reports why.
  bool attach(CURL* easy);
  // False when attach() refused the request (finish() says why).
  bool setup_ok() const { return setup_error_.empty(); }
  // Forgets the easy handle (the caller recycles it).
  void detach() { easy_ = nullptr; }

  // Builds the result for curl's completion code.
  HttpResult finish(CURLcode code);
  // Builds a result for a transfer that never ran to completion.
  HttpResult abandon(TransportError why, std::string message);

  HttpCallbacks& callbacks() { return cb_; }

 private:
  static size_t on_header_line(char* data, size_t size, size_t n, void* self);
  static size_t on_body(char* data, size_t size, size_t n, void* self);
  static curl_socket_t open_socket(void* self, curlsocktype purpose, curl_sockaddr* addr);
  void headers_complete();
  bool streaming_body() const;
  std::string where() const;

  uint64_t id_;
  HttpRequestSpec req_;
  HttpOptions opts_;
  HttpCallbacks cb_;
  CURL* easy_ = nullptr;
  curl_slist* header_list_ = nullptr;
  char errbuf_[CURL_ERROR_SIZE] = {};
  HttpResult result_;
  bool headers_done_ = false;
  size_t received_ = 0;
  bool too_large_ = false;
  std::string setup_error_;     // why attach() refused
  std::string callback_error_;  // a callback threw; transfer aborted
  std::string refused_;         // why address_policy refused a connection
};

}  // namespace kaisha::http::detail
