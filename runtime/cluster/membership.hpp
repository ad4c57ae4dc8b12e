// The membership table of one node: every node it knows of, with its
// address, key, capabilities, incarnation and state (alive, suspect, down).
//
// Invariants:
// - This node is always a member and always alive.
// - Only direct contact (heard_from) proves a member alive or restarted;
//   gossip (learn) only introduces members not known yet.
// - An incarnation never goes back: messages from an older incarnation of a
//   member are stale and change nothing.
// - A member seen with a newer incarnation while not down has restarted: its
//   previous life is reported as `restarted` (everything it hosted is lost)
//   before it is reported `joined` again.
// - A member removed from cluster.yaml (remove()) is `gone`: reported
//   `removed` once (everything it hosted is lost), never suspected, never
//   gossiped, and back only if a later file lists it and it is heard from.
// Not thread-safe; one owner drives it with the current time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cluster/failure_detector.hpp"
#include "runtime/messages/cluster_messages.hpp"

namespace kaisha::cluster {

struct Member {
  msg::NodeInfo info;
  MemberState state = MemberState::alive;
  int64_t last_heard_ms = 0;
};

struct MembershipEvent {
  enum class Kind { joined, restarted, suspected, recovered, down, removed };
  Kind kind;
  std::string node;
  int64_t incarnation = 0;
};
const char* to_string(MembershipEvent::Kind k);

class Membership {
 public:
  Membership(msg::NodeInfo self, Timeouts timeouts);

  const std::string& self_name() const { return self_.info.name; }
  const Timeouts& timeouts() const { return timeouts_; }

  // A message came directly from `info.name` at `now_ms`. Returns what
  // changed; `stale` (optional out) is set when the message belongs to an
  // older incarnation and must be ignored.
  std::vector<MembershipEvent> heard_from(const msg::NodeInfo& info, int64_t now_ms, bool* stale = nullptr);

  // Other traffic (an envelope, a reply) came directly from `name` at
  // `now_ms`: an alive member's silence starts again, so a node busy sending
  // is not suspected while its heartbeats wait behind its own messages. No
  // state changes: a suspect or down member comes back only by heard_from.
  // False when `name` is unknown or not alive.
  bool touch(const std::string& name, int64_t now_ms);

  // Another node's view of `info.name` (gossip).
  std::vector<MembershipEvent> learn(const msg::NodeInfo& info, int64_t now_ms);

  // `name` is no longer listed (or listed with another key): it is gone.
  // Reports `removed` unless it already was gone or is unknown.
  std::vector<MembershipEvent> remove(const std::string& name);

  // What cluster.yaml now says of a known member: its endpoint, key and
  // capabilities are replaced, its state and incarnation kept. False if
  // `name` is unknown.
  bool relist(const msg::NodeInfo& listed);

  // Applies the failure detector at `now_ms`.
  std::vector<MembershipEvent> tick(int64_t now_ms);

  const Member* find(const std::string& name) const;
  // Every member, this node included, by name.
  std::vector<Member> members() const;
  // The other members in `state`.
  std::vector<std::string> peers(MemberState state) const;
  // What this node gossips: every member's info with its state as seen here.
  std::vector<msg::NodeInfo> gossip() const;
  const msg::NodeInfo& self() const { return self_.info; }

 private:
  Member self_;
  Timeouts timeouts_;
  std::map<std::string, Member> others_;
};

}  // namespace kaisha::cluster
