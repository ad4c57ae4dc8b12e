// The kaisha subcommands. Each returns the process exit code: 0 success,
// 1 the task or command failed, 2 bad usage or configuration.
#pragma once

#include <string>

#include "cli/cli_config.hpp"

namespace kaisha::cli {

int run_command(const CommonOptions& o, const std::string& task);
int chat_command(const CommonOptions& o);
// Resumes the session's interrupted tasks (only task `only`, when given).
int resume_command(const CommonOptions& o, const std::string& only);
int agents_command(const CommonOptions& o, bool include_fired);
int agent_library_command(const std::string& path, bool as_json);
int candidate_pools_command(const CommonOptions& o, const std::string& restore, const std::string& revoke);
int generate_library_command(const CommonOptions& o, const std::string& description, const std::string& out,
                             int attempts);
int budget_command(const CommonOptions& o, double raise_expense, double raise_resource);
// `only_task` non-empty: that task's steps only.
int history_command(const CommonOptions& o, bool list_sessions, int limit, const std::string& only_task = "");
// A task's tree from the journal (`task` "" = the session's latest task).
int history_tree_command(const CommonOptions& o, const std::string& task);
// A pyramid task's commit history: `mode` "commits" lists it, "diff" shows
// commit `commit`'s content diff, "revert" restores the task's directory to it.
int history_commits_command(const CommonOptions& o, const std::string& task, const std::string& mode, int64_t commit);
int mock_llm_command(const std::string& script, const std::string& host, int port);

}  // namespace kaisha::cli
