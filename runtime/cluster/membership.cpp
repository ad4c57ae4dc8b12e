#include "runtime/cluster/membership.hpp"

#include <algorithm>

namespace kaisha::cluster {

const char* to_string(MembershipEvent::Kind k) {
  switch (k) {
    case MembershipEvent::Kind::joined:
      return "joined";
    case MembershipEvent::Kind::restarted:
      return "restarted";
    case MembershipEvent::Kind::suspected:
      return "suspected";
    case MembershipEvent::Kind::recovered:
      return "recovered";
    case MembershipEvent::Kind::down:
      return "down";
    case MembershipEvent::Kind::removed:
      return "removed";
  }
  return "?";
}

Membership::Membership(msg::NodeInfo self, Timeouts timeouts) : timeouts_(timeouts) {
  self_.info = std::move(self);
  self_.info.state = "alive";
}

bool Membership::touch(const std::string& name, int64_t now_ms) {
  auto it = others_.find(name);
  if (it == others_.end() || it->second.state != MemberState::alive) return false;
  it->second.last_heard_ms = std::max(it->second.last_heard_ms, now_ms);
  return true;
}

std::vector<MembershipEvent> Membership::heard_from(const msg::NodeInfo& info, int64_t now_ms, bool* stale) {
  using K = MembershipEvent::Kind;
  std::vector<MembershipEvent> events;
  if (stale) *stale = false;
  if (info.name.empty() || info.name == self_.info.name) return events;
  auto it = others_.find(info.name);
  if (it == others_.end()) {
    Member m{info, MemberState::alive, now_ms};
    m.info.state = "alive";
    others_.emplace(info.name, std::move(m));
    events.push_back({K::joined, info.name, info.incarnation});
    return events;
  }
  Member& m = it->second;
  if (m.state == MemberState::gone) {
    // Listed again (or under a new key): a new member, whatever its incarnation.
    m = Member{info, MemberState::alive, now_ms};
    m.info.state = "alive";
    events.push_back({K::joined, info.name, info.incarnation});
    return events;
  }
  if (info.incarnation < m.info.incarnation) {
    if (stale) *stale = true;
    return events;
  }
  const bool newer = info.incarnation > m.info.incarnation;
  const MemberState before = m.state;
  m.info = info;
  m.info.state = "alive";
  m.state = MemberState::alive;
  m.last_heard_ms = now_ms;
  if (newer) {
    if (before != MemberState::down) events.push_back({K::restarted, info.name, info.incarnation});
    events.push_back({K::joined, info.name, info.incarnation});
  } else if (before == MemberState::down) {
    events.push_back({K::joined, info.name, info.incarnation});
  } else if (before == MemberState::suspect) {
    events.push_back({K::recovered, info.name, info.incarnation});
  }
  return events;
}

std::vector<MembershipEvent> Membership::learn(const msg::NodeInfo& info, int64_t now_ms) {
  if (info.name.empty() || info.name == self_.info.name) return {};
  // Gossip only introduces members: a known member's new life, or its
  // recovery, is taken from its own word alone (a restarted node heartbeats
  // every member it learns of), so no third node can declare it restarted.
  // Gossip that a member is down is not taken on trust either: each node
  // runs its own detector.
  if (others_.count(info.name)) return {};
  if (info.state == "down") return {};
  return heard_from(info, now_ms);
}

std::vector<MembershipEvent> Membership::tick(int64_t now_ms) {
  using K = MembershipEvent::Kind;
  std::vector<MembershipEvent> events;
  for (auto& [name, m] : others_) {
    if (m.state == MemberState::down || m.state == MemberState::gone) continue;
    const MemberState now = classify(now_ms - m.last_heard_ms, timeouts_);
    if (now == m.state) continue;
    if (now == MemberState::suspect) events.push_back({K::suspected, name, m.info.incarnation});
    if (now == MemberState::down) events.push_back({K::down, name, m.info.incarnation});
    m.state = now;
    m.info.state = to_string(now);
  }
  return events;
}

std::vector<MembershipEvent> Membership::remove(const std::string& name) {
  auto it = others_.find(name);
  if (it == others_.end() || it->second.state == MemberState::gone) return {};
  it->second.state = MemberState::gone;
  it->second.info.state = "gone";
  return {{MembershipEvent::Kind::removed, name, it->second.info.incarnation}};
}

bool Membership::relist(const msg::NodeInfo& listed) {
  auto it = others_.find(listed.name);
  if (it == others_.end()) return false;
  it->second.info.endpoint = listed.endpoint;
  it->second.info.public_key = listed.public_key;
  it->second.info.capabilities = listed.capabilities;
  return true;
}

const Member* Membership::find(const std::string& name) const {
  if (name == self_.info.name) return &self_;
  auto it = others_.find(name);
  return it == others_.end() ? nullptr : &it->second;
}

std::vector<Member> Membership::members() const {
  std::vector<Member> out;
  bool self_done = false;
  for (const auto& [name, m] : others_) {
    if (!self_done && self_.info.name < name) {
      out.push_back(self_);
      self_done = true;
    }
    out.push_back(m);
  }
  if (!self_done) out.push_back(self_);
  return out;
}

std::vector<std::string> Membership::peers(MemberState state) const {
  std::vector<std::string> out;
  for (const auto& [name, m] : others_)
    if (m.state == state) out.push_back(name);
  return out;
}

std::vector<msg::NodeInfo> Membership::gossip() const {
  std::vector<msg::NodeInfo> out;
  for (const auto& m : members())
    if (m.state != MemberState::gone) out.push_back(m.info);
  return out;
}

}  // namespace kaisha::cluster
