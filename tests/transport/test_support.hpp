// Shared helpers for the transport tests: bounded waits, envelope builders
// and a thread-safe inbox, so every test ends within seconds even on failure.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/messages/envelope.hpp"
#include "transport/gateway.hpp"

namespace kaisha::transport::testing {

inline bool wait_until(const std::function<bool()>& pred,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pred();
}

inline msg::Envelope make_envelope(const std::string& id, const std::string& from_node, const std::string& to_node,
                                   std::string payload = "p", std::string type = "ask_request",
                                   std::string correlation = {}) {
  msg::Envelope e;
  e.id = id;
  e.correlation = std::move(correlation);
  e.from = {from_node, "CEO"};
  e.to = {to_node, "RiverPoet"};
  e.type = std::move(type);
  e.trace = "trace-1";
  e.deadline_ms = 1234;
  e.payload = std::move(payload);
  return e;
}

// Collects what a gateway delivers; on_receive runs on the I/O thread.
class Inbox {
 public:
  void attach(Gateway& g) {
    g.on_receive([this](msg::Envelope e) {
      std::lock_guard<std::mutex> l(mu_);
      items_.push_back(std::move(e));
    });
  }
  size_t size() const {
    std::lock_guard<std::mutex> l(mu_);
    return items_.size();
  }
  std::vector<msg::Envelope> items() const {
    std::lock_guard<std::mutex> l(mu_);
    return items_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<msg::Envelope> items_;
};

inline GatewayOptions plaintext_options(const std::string& node) {
  GatewayOptions o;
  o.node = node;
  o.bind = "tcp://127.0.0.1:0";
  o.allow_plaintext = true;
  o.linger_ms = 200;
  o.log = [](std::string_view) {};  // drops are asserted through counters
  return o;
}

}  // namespace kaisha::transport::testing
