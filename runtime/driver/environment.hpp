// An environment: what a strategy's answers are judged against (hiva.md §2,
// §14 item 11) — a program's unit tests in the sandbox, a data metric, an
// interactive episode, a math checker, or anything a program that links
// kaisha plugs in. It returns text, and in its output an optional success.
//
// A strategy that has one (DrivenStrategy::environment) asks it with a
// RunTool whose tool is name(): the generic strategy actor hands the request
// to an environment actor of the strategy's own (actors/agents/
// environment_actor.hpp), which judges one request at a time on a thread of
// its own, so judge() may block (a test run in the sandbox does) without
// holding up the strategy or any other actor. The answer comes back to the
// driver as a ToolRan outcome, journaled and replayed on resume as a tool's.
#pragma once

#include <string>

#include "runtime/company/tool_result.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::driver {

class Environment {
 public:
  virtual ~Environment() = default;

  // The tool name a driver's RunTool asks this environment by.
  virtual std::string name() const = 0;

  // Judges one request (the RunTool's arguments, parsed). Called on the
  // environment actor's thread only, one request at a time, so an
  // implementation needs no lock of its own. May block. An exception it
  // throws is answered as an error result naming the environment. A
  // judgment must be repeatable (it changes nothing outside itself): one in
  // flight when the process died is asked again when the task resumes.
  virtual company::ToolResult judge(const json& request) = 0;
};

}  // namespace kaisha::driver
