#include "runtime/telemetry/event_stream_reader.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "runtime/http/http_client.hpp"
#include "runtime/llm/sse_event_reader.hpp"

namespace kaisha::telemetry {

Status read_event_stream(const EventStreamOptions& o, const std::function<bool(const StreamedEvent&)>& on_event,
                         const std::function<void(const std::string&)>& on_status, const std::atomic<bool>* stop) {
  http::HttpClient client;
  std::string after = o.after;
  int reconnects = 0;
  for (;;) {
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;  // the request ended
    bool enough = false;    // on_event asked to stop
    http::HttpResult result;
    auto reader = std::make_shared<llm::SseEventReader>();
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = o.url;
    req.headers = {{"Accept", "text/event-stream"}};
    if (!o.token.empty()) req.headers.push_back({"Authorization", "Bearer " + o.token});
    if (!after.empty()) req.headers.push_back({"Last-Event-ID", after});
    http::HttpOptions ho;
    ho.timeout_ms = 0;  // a stream is meant to stay open
    ho.max_response_bytes = 0;
    http::HttpCallbacks cb;
    uint64_t id = 0;
    cb.on_headers = [&](int status, const std::map<std::string, std::string>&) {
      if (status >= 200 && status < 300 && on_status) on_status("connected to " + o.url);
    };
    cb.on_data = [&, reader](std::string_view chunk) {
      reader->feed(chunk, [&](const llm::SseMessage& e) {
        if (enough) return;
        // Where a reconnect resumes (a fresh reader knows no id until the first one).
        if (!reader->last_event_id().empty()) after = reader->last_event_id();
        StreamedEvent out{e.id, e.event, json::parse(e.data, nullptr, false)};
        if (!on_event(out)) {
          std::lock_guard<std::mutex> lock(mu);
          enough = true;
        }
      });
      if (enough) client.cancel(id);
    };
    cb.on_done = [&](http::HttpResult r) {
      std::lock_guard<std::mutex> lock(mu);
      result = std::move(r);
      finished = true;
      cv.notify_all();
    };
    id = client.submit(req, ho, cb);
    {
      std::unique_lock<std::mutex> lock(mu);
      while (!finished) {
        cv.wait_for(lock, std::chrono::milliseconds(100));
        if (!finished && stop && stop->load()) {
          lock.unlock();
          client.cancel(id);
          lock.lock();
          cv.wait(lock, [&] { return finished; });
        }
      }
    }
    if (enough || (stop && stop->load())) return Status::Ok();
    if (result.error == http::TransportError::none && result.status >= 400 && result.status < 500) {
      std::string why = result.body;
      json j = json::parse(result.body, nullptr, false);
      if (j.is_object() && j.contains("error") && j["error"].is_object())
        why = j["error"].value("message", result.body);
      return Error{"events", o.url + " answered " + std::to_string(result.status) + ": " + why};
    }
    const std::string why = result.error != http::TransportError::none ? result.error_message
                            : result.status >= 300                     ? "HTTP " + std::to_string(result.status)
                                                                       : "the server ended the stream";
    if (o.max_reconnects >= 0 && reconnects >= o.max_reconnects) return Error{"events", o.url + ": " + why};
    ++reconnects;
    if (on_status) on_status("disconnected (" + why + "); reconnecting in " + std::to_string(o.reconnect_ms) + " ms");
    for (int64_t waited = 0; waited < o.reconnect_ms; waited += 50) {
      if (stop && stop->load()) return Status::Ok();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace kaisha::telemetry
