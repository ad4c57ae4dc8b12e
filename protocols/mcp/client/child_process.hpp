// ChildProcess: a long-lived program started with pipes on its stdin, stdout
// and stderr — an MCP server run over stdio. The child gets its own process
// group, so that ending it also ends what it started (npx -> node). Every
// child is reaped: terminate() and the destructor wait for it, so no zombie
// is left behind.
//
// Pipes are non-blocking and close-on-exec in the parent; the owner polls
// them. Not thread-safe: one owner thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::mcp {

struct ChildSpec {
  std::string command;                     // looked up in PATH unless it has a '/'
  std::vector<std::string> args;           // without argv[0]
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
};

class ChildProcess {
 public:
  // Error code "spawn" naming the command and the OS error (e.g. not found).
  static Result<std::unique_ptr<ChildProcess>> spawn(const ChildSpec& spec);
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return in_; }  // -1 once closed
  int stdout_fd() const { return out_; }
  int stderr_fd() const { return err_; }
  void close_stdin();

  // Non-blocking: how the child ended ("exited with status 3", "was killed
  // by signal 9") once it has, else nullopt. Reaps it.
  std::optional<std::string> try_reap();

  // Ends the child the way MCP's stdio transport says: close its stdin, give
  // it `grace` to exit, then SIGTERM its group, then SIGKILL. Blocks at most
  // about 2 * grace. Returns how it ended. Idempotent.
  std::string terminate(std::chrono::milliseconds grace);

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::optional<std::string> ended_;
};

}  // namespace kaisha::mcp
