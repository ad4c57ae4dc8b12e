#include "runtime/http/http_client.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "runtime/http/transfer.hpp"

namespace kaisha::http {

const char* to_string(TransportError e) {
  switch (e) {
    case TransportError::none:
      return "none";
    case TransportError::timeout:
      return "timeout";
    case TransportError::connect:
      return "connect";
    case TransportError::cancelled:
      return "cancelled";
    case TransportError::too_large:
      return "too_large";
    case TransportError::refused:
      return "refused";
    case TransportError::other:
      return "other";
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

// Longest sleep in epoll_wait; bounds the damage of a missed wakeup.
constexpr int kMaxPollMs = 1000;
constexpr int kMaxEvents = 256;
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

// The loop drives curl with curl_multi_socket_action on its own epoll set:
// curl says which sockets to watch (socket callback) and when to call back
// (timer callback), and each wakeup touches only the sockets that are ready.
// curl_multi_perform/poll would instead visit every transfer in flight on
// every wakeup, which with a thousand concurrent transfers costs more CPU
// than the transfers themselves.
struct HttpClient::Impl {
  CURLM* multi = nullptr;
  int ep = -1;                    // epoll set: curl's sockets + wake_fd
  int wake_fd = -1;               // eventfd: the inbox has work
  int64_t curl_deadline_ms = -1;  // from the timer callback; -1 = none
  Clock::time_point curl_timer_set{};
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

  // Easy handles for reuse: taken by submitting threads, given back by the loop.
  std::mutex pool_mu;
  std::vector<CURL*> pool;

  void run();
  void wake() {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd, &one, sizeof one);
  }
  static int on_socket(CURL* easy, curl_socket_t s, int what, void* self, void* socketp);
  static int on_timer(CURLM* multi, long timeout_ms, void* self);
  void start(std::unique_ptr<Transfer> t);
  void complete(std::unique_ptr<Transfer> t, HttpResult r);
  void finish_done_transfers();
  void run_due_timers();
  int poll_timeout_ms();
  void shutdown();

  CURL* take_handle() {
    {
      std::lock_guard lk(pool_mu);
      if (!pool.empty()) {
        CURL* h = pool.back();
        pool.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }
  void recycle(CURL* h) {
    if (!h) return;
    // Connections stay in the multi handle's cache, so reuse to the same host
    // does not depend on which easy handle runs the next request.
    curl_easy_reset(h);
    {
      std::lock_guard lk(pool_mu);
      if (pool.size() < kMaxPooledHandles) {
        pool.push_back(h);
        return;
      }
    }
    curl_easy_cleanup(h);
  }
};

// The transfer's easy handle was made and configured by submit(), on the
// submitting thread: a burst of a thousand requests then spends the loop
// thread's time on sockets, not on allocating and zeroing handles.
void HttpClient::Impl::start(std::unique_ptr<Transfer> t) {
  CURL* h = t->easy();
  if (!h) {
    HttpResult r = t->abandon(TransportError::other, "curl_easy_init failed");
    complete(std::move(t), std::move(r));
    return;
  }
  if (!t->setup_ok()) {
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
  int ms = kMaxPollMs;
  if (curl_deadline_ms >= 0) {
    const auto left =
        curl_deadline_ms - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - curl_timer_set).count();
    ms = std::min<int>(ms, static_cast<int>(std::max<int64_t>(0, left)));
  }
  std::lock_guard lk(mu);
  if (!timers.empty()) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(timers.front().due - Clock::now()).count();
    // Round up by one so we do not wake a hair early and spin.
    ms = std::min<int>(ms, static_cast<int>(std::max<int64_t>(0, wait + 1)));
  }
  return ms;
}

// `socketp` is what curl_multi_assign() stored for the socket: set once the
// socket is in the epoll set, so a new socket costs one epoll_ctl (ADD), not a
// failed MOD first; a burst of a thousand connections is a thousand of them.
int HttpClient::Impl::on_socket(CURL*, curl_socket_t s, int what, void* self, void* socketp) {
  auto* impl = static_cast<Impl*>(self);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(impl->ep, EPOLL_CTL_DEL, s, nullptr);
    return 0;  // curl forgets socketp with the socket
  }
  epoll_event ev{};
  ev.events = (what & CURL_POLL_IN ? uint32_t{EPOLLIN} : 0u) | (what & CURL_POLL_OUT ? uint32_t{EPOLLOUT} : 0u);
  ev.data.fd = s;
  if (socketp) {
    if (epoll_ctl(impl->ep, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT) epoll_ctl(impl->ep, EPOLL_CTL_ADD, s, &ev);
    return 0;
  }
  if (epoll_ctl(impl->ep, EPOLL_CTL_ADD, s, &ev) != 0 && errno == EEXIST) epoll_ctl(impl->ep, EPOLL_CTL_MOD, s, &ev);
  curl_multi_assign(impl->multi, s, impl);
  return 0;
}

int HttpClient::Impl::on_timer(CURLM*, long timeout_ms, void* self) {
  auto* impl = static_cast<Impl*>(self);
  impl->curl_deadline_ms = timeout_ms;
  impl->curl_timer_set = Clock::now();
  return 0;
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

    finish_done_transfers();  // transfers that failed while being added
    epoll_event events[kMaxEvents];
    const int n = epoll_wait(ep, events, kMaxEvents, poll_timeout_ms());
    int running = 0;
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wake_fd) {
        uint64_t count = 0;
        [[maybe_unused]] ssize_t r = ::read(wake_fd, &count, sizeof count);
        continue;
      }
      const uint32_t e = events[i].events;
      const int flags = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                        (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
      curl_multi_socket_action(multi, fd, flags, &running);
    }
    if (curl_deadline_ms >= 0 && Clock::now() - curl_timer_set >= std::chrono::milliseconds(curl_deadline_ms)) {
      curl_deadline_ms = -1;
      curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    finish_done_transfers();
    run_due_timers();
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
      std::sort(timers.begin(), timers.end(),
                [](const Timer& a, const Timer& b) { return a.due != b.due ? a.due < b.due : a.seq < b.seq; });
      due.swap(timers);
    }
    for (auto& t : subs) {
      CURL* h = t->easy();
      t->detach();
      recycle(h);
      HttpResult r = t->abandon(TransportError::cancelled, "request cancelled: HTTP client shutting down");
      complete(std::move(t), std::move(r));
    }
    for (auto& t : due) guarded("scheduled function", t.fn);
  }
}

HttpClient::HttpClient() : impl_(std::make_unique<Impl>()) {
  detail::ensure_curl_initialized();
  impl_->multi = curl_multi_init();
  impl_->ep = epoll_create1(EPOLL_CLOEXEC);
  impl_->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = impl_->wake_fd;
  epoll_ctl(impl_->ep, EPOLL_CTL_ADD, impl_->wake_fd, &ev);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETFUNCTION, &Impl::on_socket);
  curl_multi_setopt(impl_->multi, CURLMOPT_SOCKETDATA, impl_.get());
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERFUNCTION, &Impl::on_timer);
  curl_multi_setopt(impl_->multi, CURLMOPT_TIMERDATA, impl_.get());
  // Idle connections kept for reuse (keep-alive): enough for a burst of
  // concurrent calls to one provider to come back to warm connections.
  curl_multi_setopt(impl_->multi, CURLMOPT_MAXCONNECTS, 2048L);
  impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

HttpClient::~HttpClient() {
  {
    std::lock_guard lk(impl_->mu);
    impl_->stopping = true;
    impl_->wake();
  }
  if (impl_->thread.joinable()) impl_->thread.join();
  for (CURL* h : impl_->pool) curl_easy_cleanup(h);
  impl_->pool.clear();
  curl_multi_cleanup(impl_->multi);  // closes cached connections (socket callback: REMOVE)
  ::close(impl_->ep);
  ::close(impl_->wake_fd);
}

uint64_t HttpClient::submit(HttpRequestSpec req, HttpOptions opts, HttpCallbacks cb) {
  const uint64_t id = impl_->next_id.fetch_add(1);
  auto t = std::make_unique<Transfer>(id, std::move(req), opts, std::move(cb));
  // Configured here, off the loop thread (see Impl::start); a refused
  // request still completes on the loop thread.
  if (CURL* h = impl_->take_handle()) t->attach(h);
  impl_->in_flight.fetch_add(1);
  {
    std::lock_guard lk(impl_->mu);
    if (!impl_->closed) {
      impl_->submissions.push_back(std::move(t));
      impl_->wake();
      return id;
    }
  }
  if (CURL* h = t->easy()) {
    t->detach();
    impl_->recycle(h);
  }
  HttpResult r = t->abandon(TransportError::cancelled, "request cancelled: HTTP client shut down");
  impl_->complete(std::move(t), std::move(r));
  return id;
}

void HttpClient::cancel(uint64_t id) {
  std::lock_guard lk(impl_->mu);
  if (impl_->closed) return;
  impl_->cancels.push_back(id);
  impl_->wake();
}

void HttpClient::schedule(std::chrono::milliseconds delay, std::function<void()> fn) {
  {
    std::lock_guard lk(impl_->mu);
    if (!impl_->closed) {
      impl_->timers.push_back(Timer{Clock::now() + delay, impl_->timer_seq++, std::move(fn)});
      std::push_heap(impl_->timers.begin(), impl_->timers.end());
      impl_->wake();
      return;
    }
  }
  // Closed: nothing will ever run it later, so run it now.
  guarded("scheduled function", fn);
}

bool HttpClient::on_loop_thread() const { return impl_->loop_id.load() == std::this_thread::get_id(); }

size_t HttpClient::in_flight() const { return impl_->in_flight.load(); }

}  // namespace kaisha::http
