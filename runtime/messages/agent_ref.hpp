// AgentRef names an agent independently of where it lives. Code that talks to
// an agent holds its ref; whether the agent runs in this process, on another
// node, or behind a protocol adapter is the router's business.
#pragma once

#include <string>

#include <msgpack.hpp>

namespace kaisha::msg {

struct AgentRef {
  std::string node;  // node name; "local" inside a single process
  std::string name;  // unique within the company, e.g. "CEO", "RiverPoet"
  MSGPACK_DEFINE_MAP(node, name)

  bool operator==(const AgentRef&) const = default;
};

// "name@node", the form used in logs and the journal.
std::string to_string(const AgentRef& ref);

}  // namespace kaisha::msg
