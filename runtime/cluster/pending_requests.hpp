// Requests sent to other nodes and not answered yet, each with the node it
// went to and its deadline. Every request ends exactly once: with its reply,
// with a timeout once its deadline passed, or with node_down when its node is
// declared down — so a caller never waits on a dead peer.
//
// Thread-safe. Callbacks run on the thread that ends the request (a reply on
// the gateway's I/O thread, a timeout or node_down on the membership ticker),
// outside the table's lock; they must hand the result on and return.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "runtime/core/result.hpp"
#include "runtime/messages/envelope.hpp"

namespace kaisha::cluster {

class PendingRequests {
 public:
  using Callback = std::function<void(Result<msg::Envelope>)>;

  // Registers request `id` to `node`; a reply is matched by its correlation.
  void add(const std::string& id, const std::string& node, int64_t deadline_ms, Callback done);

  // A reply arrived: ends request `reply.correlation`. False when no such
  // request waits (late, duplicate or forged), the reply is then dropped.
  bool complete(const msg::Envelope& reply);

  // Ends one request with `error` (e.g. the send failed). False when unknown.
  bool fail(const std::string& id, Error error);

  // Ends every request to `node` with code "node_down"; returns how many.
  size_t fail_node(const std::string& node, const std::string& why);

  // Ends every request whose deadline is before `now_ms` with code "timeout".
  size_t expire(int64_t now_ms);

  size_t size() const;

 private:
  struct Entry {
    std::string node;
    int64_t deadline_ms = 0;
    Callback done;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> pending_;
};

}  // namespace kaisha::cluster
