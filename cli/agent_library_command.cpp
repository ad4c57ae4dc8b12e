// kaisha agents --library FILE: validates a pyramid agent library and shows
// its agents by level and its shape (depth, fan-out, functional agents,
// branching factor).
#include <iostream>

#include "cli/commands.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/pyramid/agent_library.hpp"

namespace kaisha::cli {

int agent_library_command(const std::string& path, bool as_json) {
  auto lib = pyramid::AgentLibrary::load_file(path);
  if (!lib.ok()) {
    std::cerr << "kaisha: " << lib.error().message << "\n";
    return 2;
  }
  const pyramid::LibraryShape shape = lib->shape();
  if (as_json) {
    json agents = json::array();
    for (const auto& a : lib->agents())
      agents.push_back({{"name", a.name},
                        {"level", a.level},
                        {"description", a.description},
                        {"available_tools", a.available_tools},
                        {"model", a.model},
                        {"max_turns", a.max_turns}});
    std::cout << dump_text(json{{"library", path},
                                {"max_children", lib->max_children()},
                                {"agents", agents},
                                {"shape", shape.to_json()}},
                           2)
              << "\n";
    return 0;
  }
  std::cout << path << ": " << lib->agents().size() << " agent(s), max " << lib->max_children() << " sub-agents each\n";
  int top = 0;
  for (const auto& a : lib->agents()) top = std::max(top, a.level);
  for (int level = top; level >= -1; --level)
    for (const auto& a : lib->agents()) {
      if (a.level != level) continue;
      std::cout << "  level " << a.level << "  " << a.name;
      if (a.level >= 1) std::cout << "  (" << shape.fan_out.at(a.name) << " sub-agents)";
      if (!a.model.empty()) std::cout << "  model " << a.model;
      if (!a.candidates.empty()) {
        std::cout << "  candidates";
        for (const auto& m : a.candidates) std::cout << " " << m;
      }
      std::cout << "\n";
    }
  std::cout << "depth L " << shape.depth << ", functional agents N_func " << shape.functional << ", mean branching b "
            << shape.branching << "\n";
  std::cout << "roots:";
  for (const auto& r : shape.roots) std::cout << " " << r;
  std::cout << "\n";
  return 0;
}

}  // namespace kaisha::cli
