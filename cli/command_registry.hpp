// Subcommands that live in their own file register themselves here, so adding
// a command (serve, node, submit, ...) never edits main.cpp. Registration runs
// during static initialisation of the kaisha executable (the cli/ sources are
// linked directly, not through a static library, so nothing is dropped).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace kaisha::cli {

// Adds the command's options to `cmd` and returns what runs it once parsed.
// The returned function gives the process exit code (0 ok, 1 failed, 2 usage).
using CommandSetup = std::function<std::function<int()>(CLI::App* cmd)>;

struct RegisteredCommand {
  std::string name;
  std::string help;
  CommandSetup setup;
};

inline std::vector<RegisteredCommand>& registered_commands() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

// Use at namespace scope in a command's .cpp:
//   static const bool registered = register_command("serve", "help", setup);
inline bool register_command(std::string name, std::string help, CommandSetup setup) {
  registered_commands().push_back({std::move(name), std::move(help), std::move(setup)});
  return true;
}

}  // namespace kaisha::cli
