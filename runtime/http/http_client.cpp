#include "runtime/http/http_client.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/http/transfer.hpp"

namespace kaisha::http {

const char* to_string(TransportError e) {
  switch (e) {
    case TransportError::none: return "none";
    case TransportError::timeout: return "timeout";
    case TransportError::connect: return "connect";
    case TransportError::cancelled: return "cancelled";
    case TransportError::too_large: return "too_large";
    case TransportError::other: return "other";
  }
  return "other";
}

std::string HttpResult::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

namespace {

using Clock = std::chrono::steady_clock;
using detail::Transfer;

// Longest sleep in curl_multi_poll; bounds the damage of a missed wakeup.
constexpr int kMaxPollMs = 1000;
// Easy handles kept for reuse; beyond this, finished handles are freed.
constexpr size_t kMaxPooledHandles = 64;

struct Timer {
  Clock::time_point due;
  uint64_t seq;
  std::function<void()> fn;
  // std::push_heap builds a max-heap: invert so the earliest is on top.
  bool operator<(const Timer& o) const { return due != o.due ? due > o.due : seq > o.seq; }
};

template <class F>
void guarded(const char* what, F&& f) {
  // A throwing callback must not take the loop (and every other request)
  // down with it.
  try {
    f();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaisha http: %s threw: %s\n", what, e.what());
  } catch (...) {
    std::fprintf(stderr, "kaisha http: %s threw\n", what);
  }
}

}  // namespace

struct HttpClient::Impl {
  CURLM* multi = nullptr;
  std::thread thread;
  std::atomic<std::thread::id> loop_id{};
  std::atomic<uint64_t> next_id{1};
  std::atomic<size_t> in_flight{0};

  // Inbox, guarded by mu: filled by any thread, emptied by the loop.
  std::mutex mu;
  std::vector<std::unique_ptr<Transfer>> submissions;
  std::vector<uint64_t> cancels;
  std::vector<Timer> timers;  // heap
  uint64_t timer_seq = 0;
  bool stopping = false;
  bool closed = false;  // loop gone: complete new work inline

  // Owned by the loop thread.
  std::unordered_map<uint64_t, std::unique_ptr<Transfer>> active;
  std::vector<CURL*> pool;

  void run();
  void start(std::unique_ptr<Transfer> t);
  void complete(std::unique_ptr<Transfer> t, HttpResult r);
  void finish_done_transfers();
  void run_due_timers();
  int poll_timeout_ms();
  void shutdown();

  CURL* take_handle() {
    if (pool.empty()) return curl_easy_init();
    CURL* h = pool.back();
    pool.pop_back();
    return h;
  }
  void recycle(CURL* h) {
    if (!h) return;
    // Connections stay in the multi handle's cache, so reuse to the same host
    // does not depend on which easy handle runs the next request.
    curl_easy_reset(h);
    if (pool.size() < kMaxPooledHandles) pool.push_back(h);
    else curl_easy_cleanup(h);
  }
};

void HttpClient::Impl::start(std::unique_ptr<Transfer> t) {
  CURL* h = take_handle();
  if (!h) {
    HttpResult r = t->abandon(TransportError::other, "curl_easy_init failed");
    complete(std::move(t), std::move(r));
    return;
  }
  if (!t->attach(h)) {
    HttpResult r = t->finish(CURLE_OK);
    t->detach();
    recycle(h);
    complete(std::move(t), std::move(r));
    return;
  }
  if (CURLMcode mc = curl_multi_add_handle(multi, h); mc != CURLM_OK) {
    HttpResult r = t->abandon(TransportError::other, std::string("curl_multi_add_handle: ") + curl_multi_strerror(mc));
    t->detach();
    recycle(h);
    complete(std::move(t), std::move(r));
    return;
  }
  const uint64_t id = t->id();
  active.emplace(id, std::move(t));
}

void HttpClient::Impl::complete(std::unique_ptr<Transfer> t, HttpResult r) {
  auto done = std::move(t->callbacks().on_done);
  t.reset();  // frees header list; the easy handle was recycled by the caller
  in_flight.fetch_sub(1);
  if (done) guarded("on_done", [&] { done(std::move(r)); });
}

void HttpClient::Impl::finish_done_transfers() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* h = msg->easy_handle;
    const CURLcode code = msg->data.result;  // read before remove_handle
    Transfer* raw = nullptr;
    curl_easy_getinfo(h, CURLINFO_PRIVATE, reinterpret_cast<char**>(&raw));
    curl_multi_remove_handle(multi, h);
    auto it = raw ? active.find(raw->id()) : active.end();
    if (it == active.end()) {
      recycle(h);
      continue;
    }
    std::unique_ptr<Transfer> t = std::move(it->second);
    active.erase(it);
    HttpResult r = t->finish(code);
    t->detach();
    recycle(h);
    complete(std::move(t), std::move(r));
  }
}

void HttpClient::Impl::run_due_timers() {
  std::vector<Timer> due;
  {
    std::lock_guard lk(mu);
    const auto now = Clock::now();
    while (!timers.empty() && timers.front().due <= now) {
      std::pop_heap(timers.begin(), timers.end());
      due.push_back(std::move(timers.back()));
      timers.pop_back();
    }
  }
  for (auto& t : due) guarded("scheduled function", t.fn);
}

int HttpClient::Impl::poll_timeout_ms() {
  long curl_ms = -1;
  curl_multi_timeout(multi, &curl_ms);
  int ms = curl_ms < 0 ? kMaxPollMs : static_cast<int>(std::min<long>(curl_ms, kMaxPollMs));
  std::lock_guard lk(mu);
  if (!timers.empty()) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(timers.front().due - Clock::now()).count();
    // Round up by one so we do not wake a hair early and spin.
    ms = std::min<int>(ms, static_cast<int>(std::max<int64_t>(0, wait + 1)));
  }
  return ms;
}

void HttpClient::Impl::run() {
  loop_id = std::this_thread::get_id();
  while (true) {
    std::vector<std::unique_ptr<Transfer>> new_transfers;
    std::vector<uint64_t> new_cancels;
    bool stop = false;
    {
      std::lock_guard lk(mu);
      new_transfers.swap(submissions);
      new_cancels.swap(cancels);
      stop = stopping;
    }
    for (auto& t : new_transfers) start(std::move(t));
    for (uint64_t id : new_cancels) {
      auto it = active.find(id);
      if (it == active.end()) continue;
      std::unique_ptr<Transfer> t = std::move(it->second);
      active.erase(it);
      CURL* h = t->easy();
      curl_multi_remove_handle(multi, h);
      HttpResult r = t->abandon(TransportError::cancelled, "request cancelled");
      t->detach();
      recycle(h);
      complete(std::move(t), std::move(r));
    }
    if (stop) break;

    int running = 0;
    curl_multi_perform(multi, &running);
    finish_done_transfers();
    run_due_timers();
    curl_multi_poll(multi, nullptr, 0, poll_timeout_ms(), nullptr);
  }
  shutdown();
}

void HttpClient::Impl::shutdown() {
  // In-flight transfers end as cancelled.
  std::vector<std::unique_ptr<Transfer>> ending;
  for (auto& [id, t] : active) ending.push_back(std::move(t));
  active.clear();
  for (auto& t : ending) {
    CURL* h = t->easy();
    curl_multi_remove_handle(multi, h);
    HttpResult r = t->abandon(TransportError::cancelled, "request cancelled: HTTP client shutting down");
    t->detach();
    recycle(h);
    complete(std::move(t), std::move(r));
  }
  // Run timers early and cancel whatever they (or anyone) submit, until no
  // work is left; then close the inbox for good.
  while (true) {
    std::vector<std::unique_ptr<Transfer>> subs;
    std::vector<Timer> due;
    {
      std::lock_guard lk(mu);
      if (submissions.empty() && timers.empty()) {
        closed = true;
        cancels.clear();
        break;
      }
      subs.swap(submissions);
      std::sort(timers.begin(), timers.end(), [](const Timer& a, const Timer& b) {
        return a.due != b.due ? a.due < b.due : a.seq < b.seq;
      });
      due.swap(timers);
    }
    for (auto& t : subs) {
      HttpResult r = t->abandon(TransportError::cancelled, "request cancelled: HTTP client shutting down");
      complete(std::move(t), std::move(r));
    }
    for (auto& t : due) guarded("scheduled function", t.fn);
  }
}

HttpClient::HttpClient() : impl_(std::make_unique<Impl>()) {
  detail::ensure_curl_initialized();
  impl_->multi = curl_multi_init();
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

HttpClient::~HttpClient() {
  {
    std::lock_guard lk(impl_->mu);
    impl_->stopping = true;
    curl_multi_wakeup(impl_->multi);
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  for (CURL* h : impl_->pool) curl_easy_cleanup(h);
  impl_->pool.clear();
  curl_multi_cleanup(impl_->multi);
}

uint64_t HttpClient::submit(HttpRequestSpec req, HttpOptions opts, HttpCallbacks cb) {
  const uint64_t id = impl_->next_id.fetch_add(1);
  auto t = std::make_unique<Transfer>(id, std::move(req), opts, std::move(cb));
  impl_->in_flight.fetch_add(1);
  {
    std::lock_guard lk(impl_->mu);
    if (!impl_->closed) {
      impl_->submissions.push_back(std::move(t));
      curl_multi_wakeup(impl_->multi);
      return id;
    }
  }
  HttpResult r = t->abandon(TransportError::cancelled, "request cancelled: HTTP client shut down");
  impl_->complete(std::move(t), std::move(r));
  return id;
}

void HttpClient::cancel(uint64_t id) {
  std::lock_guard lk(impl_->mu);
  if (impl_->closed) return;
  impl_->cancels.push_back(id);
  curl_multi_wakeup(impl_->multi);
}

void HttpClient::schedule(std::chrono::milliseconds delay, std::function<void()> fn) {
  {
    std::lock_guard lk(impl_->mu);
    if (!impl_->closed) {
      impl_->timers.push_back(Timer{Clock::now() + delay, impl_->timer_seq++, std::move(fn)});
      std::push_heap(impl_->timers.begin(), impl_->timers.end());
      curl_multi_wakeup(impl_->multi);
      return;
    }
  }
  // Closed: nothing will ever run it later, so run it now.
  guarded("scheduled function", fn);
}

bool HttpClient::on_loop_thread() const { return impl_->loop_id.load() == std::this_thread::get_id(); }

size_t HttpClient::in_flight() const { return impl_->in_flight.load(); }

}  // namespace kaisha::http
