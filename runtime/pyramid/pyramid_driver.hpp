// The pyramid strategy's algorithm for one task (InfiAgent, infiagent.md
// §10 B, D, E, H, I, J), as a pure driver (runtime/driver/driver_effects.hpp).
//
// The task enters at the agent the router chose. Every agent of the library
// that the task uses is hired once (Hire, on its first call) and each call of
// it — the task's, or a parent's tool call naming it — runs with a fresh
// context of its own: the driver builds the four parts (AgentContext) for
// every model turn and asks the hired agent for one turn at a time (an Ask
// carrying the messages and the tools). What the model asks for in a turn:
//   - an agent-tool (a lower agent, or the judge): a child call in the same
//     workspace and task; its final_output JSON, and nothing else of it,
//     becomes the parent's tool result;
//   - a level-0 tool: a RunTool with the model's arguments;
//   - final_output: the call ends (alone in its turn, valid, its file
//     references present, and naming at least one file when the call wrote
//     some), else it is told why and tries again, a bounded number of times.
// Calls of one turn run concurrently; their results go back in call order; a
// turn runs at most max_calls_per_turn tool calls, of them at most K_max
// (the library's max_children) agent calls.
// A turn with no tool call gets up to max_nudges reminders; a call that
// reaches its max_turns, runs out of reminders or of final_output attempts
// ends with failed_output(why) — never a hang.
//
// With enforce_judge, every success of an agent (level >= 1) that did not
// have the judge approve it itself is audited by a call of the library's
// judge; a rejection goes back to the agent as its final_output's result
// and it tries again, up to max_judge_retries times, then it ends with an
// error carrying the judge's last report. A verdict from a judge the agent
// called itself takes the same path (Q updated, verdict journaled and
// attached); its approval counts only when the call wrote nothing after
// asking. A judge that fails to rule (a refused hire, a model error, its
// turn limit) is not a rejection: Q stays and no retry is used; the audit
// runs again, up to max_judge_failures times. Each call's tokens and dollars roll up into its caller's.
// When a call's conversation (C_ENV) passes env_budget_tokens (τ), the
// call's next turn waits for a summary of its middle (asked of the same
// agent, with no tools): the first instruction and the latest interaction
// stay verbatim, so the prompt stays bounded however long the call runs.
// An agent with candidate models runs each call once per candidate in its
// pool (candidate_pool.hpp: pruned ones do not run, a default runs alone),
// at the same time, each on its own branch of the task's directory (a copy
// made when the call starts, by the hidden level-0 tool kBranchOpenTool).
// When all are done, each branch is closed to learn its change set; every
// accepted one (a success, audited like any other) is a merge candidate
// and merge_plan.hpp decides which are merged (Eq. 12: the higher Q wins a
// conflict). The plan is journaled, then the merges run one after another
// (kBranchCloseTool), each a commit of the task's history when it goes into
// the task's directory; change sets that did not reach it are recorded as
// rejected commits, and the branches are dropped (kBranchDropTool). The
// caller gets the merged success with the highest Q, every branch's
// outcome and change set beside it. Each candidate is hired as its own
// employee, with its own quality score.
// Hired agents are fired when the task ends.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/driver/driver_effects.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/economy/model_cost.hpp"
#include "runtime/pyramid/agent_context.hpp"
#include "runtime/pyramid/agent_library.hpp"
#include "runtime/pyramid/agent_router.hpp"
#include "runtime/pyramid/call_tree.hpp"
#include "runtime/pyramid/candidate_pool.hpp"
#include "runtime/pyramid/final_output.hpp"
#include "runtime/pyramid/loop_texts.hpp"
#include "runtime/pyramid/merge_plan.hpp"
#include "runtime/pyramid/quality_scores.hpp"
#include "runtime/pyramid/workspace_index.hpp"

namespace kaisha::pyramid {

// The level-0 tool a driver runs to check the files a final_output names:
// arguments {"paths": [...]}; success when all exist, else an error naming
// the missing ones. Not offered to models.
inline constexpr const char* kCheckFilesTool = "check_files";
// The judge's execute_code (the driver runs it in place of execute_code for
// the judge): the same program run, with the task's directory mounted
// read-only and only /tmp writable, so an audit changes no file.
inline constexpr const char* kJudgeExecuteTool = "judge_execute_code";
// Copies the directory (or branch) `from` ("" = the task's directory) into
// the new branch `branch`: arguments {"from", "branch"}; the output is the
// copy's manifest {path: content hash}.
inline constexpr const char* kBranchOpenTool = "branch_open";
// What branch `branch` changed against `base` (a manifest), merged into
// `into` when `merge`: arguments {"branch", "into", "base", "merge"}; the
// output is {"added", "modified", "removed", "merged", and when merging
// "conflicts": files `into` changed meanwhile, left as they are}.
// With a "record" object ({"agent", "model", "q", "verdict", "why"}), the
// close is also a commit of the task's history (tools/workspace_history.hpp):
// a merge commit when merging, a rejected one when not; its id is the
// output's "commit". Its output also holds "hashes": {path: content hash}.
inline constexpr const char* kBranchCloseTool = "branch_close";
// The company's embedder on the task's input, when it cannot answer at once
// (a provider's model): arguments {"text"}; the output is {"vector": [..]}.
// The driver runs it before routing a task whose route is kRouteByEmbedding.
inline constexpr const char* kEmbedQueryTool = "pyramid.embed_query";
// The method of a RouteDecision not made yet: the driver embeds the input
// with kEmbedQueryTool, then routes.
inline constexpr const char* kRouteByEmbedding = "embedding_pending";
// Removes the branches' directories: arguments {"branches": [...]}.
inline constexpr const char* kBranchDropTool = "branch_drop";

// What every task of one pyramid strategy shares.
struct PyramidSetup {
  std::shared_ptr<const AgentLibrary> library;
  std::shared_ptr<const AgentContext> context;
  std::shared_ptr<const LoopTexts> texts;
  // The level-0 tools on offer, by name (final_output among them).
  std::map<std::string, llm::ToolSpec> level0;
  // The priced model an agent runs on: `model` is its own model or one of
  // its candidates ("" = the strategy's default).
  std::function<economy::ModelCost(const std::string& model)> cost_of;
  TokenCounter count;
  int64_t index_budget_tokens = 2000;  // C_LM
  // τ: when a call's C_ENV passes it, the agent's model summarises all but
  // the first instruction and the latest interaction, which stay verbatim
  // (0: never compressed).
  int64_t env_budget_tokens = 120000;
  int max_nudges = 5;
  // Tool calls run from one turn; the rest of a longer turn are answered
  // with an error asking for them in a later turn (a model's output never
  // starts an unbounded number of calls at once).
  int max_calls_per_turn = 10;
  int max_final_output_retries = 3;
  bool enforce_judge = true;
  int max_judge_retries = 3;
  // Audits in a row the judge may fail to rule on (a refused hire, a model
  // error, its turn limit) before the call ends with that error; a failure
  // is not a rejection: Q stays, no retry is used.
  int max_judge_failures = 2;
  bool check_files = true;  // run kCheckFilesTool (a RunTool) on a final_output's files
  FinalOutputLimits limits;
  std::function<int64_t()> now_ms;   // a monotonic clock, for call durations (null: none)
  std::function<int64_t()> wall_ms;  // the time of day, for Q's history (null: 0)
  // An agent whose Q falls below it raises a "poor performance" trigger
  // (logged once as it crosses; 0: never).
  double poor_quality = 0.3;
  // With a router and a method other than embedding, a task routed by
  // embedding (its route's method) is routed again with the scores a model
  // gives every candidate (a CallModel, purpose "route") before it starts;
  // a failed call or an unreadable answer keeps the embedding's decision
  // and says why in the route's `fallback`.
  std::shared_ptr<const AgentRouter> router;
  RouteMethod route_method = RouteMethod::embedding;
};

// One task. Feed it the outcomes of the effects it returned; after a Finish
// it returns nothing more.
class PyramidDriver {
 public:
  // `setup` and `quality` must outlive the driver. `route` says where the
  // task enters (its agent must be in the library), or has the method
  // kRouteByEmbedding when the driver is to embed and route; `listening` whether
  // chatty progress events are wanted (null: never).
  // `pool` (null: every candidate always runs) says which candidate models
  // run; its changes are journaled and saved as SaveState "pool/<agent>".
  PyramidDriver(const PyramidSetup& setup, QualityScores& quality, std::string task_id, std::string input,
                RouteDecision route, std::function<bool()> listening = {}, CandidatePool* pool = nullptr);

  driver::Effects start();
  // Where the task entered (after the model's scores, when it was asked).
  const RouteDecision& route() const { return route_; }
  driver::Effects on(const driver::Outcome& o);
  // The task is canceled: the agents are fired and it finishes with `why`.
  driver::Effects cancel(const std::string& why);
  bool finished() const { return finished_; }

  // Introspection: the calls running now, the task's workspace index, and
  // the four parts of the next prompt of running call `call` (its id in tree()).
  const CallTree& tree() const { return tree_; }
  const WorkspaceIndex& index() const { return index_; }
  std::optional<ContextParts> context_parts(uint64_t call) const;
  // The largest prompt sent so far, and |H|: every message ever added to a
  // call's conversation, in tokens by setup.count.
  int64_t largest_prompt_tokens() const { return largest_prompt_; }
  int64_t history_tokens() const { return history_tokens_; }
  // How many times a call's C_ENV was compressed.
  int64_t compressions() const { return compressions_; }

 private:
  // One tool call of a turn, and its result once known.
  struct Slot {
    llm::ToolCall request;
    std::optional<std::string> result;
  };
  struct Call {
    uint64_t id = 0;
    uint64_t parent = 0;      // the calling call; 0 for the task's
    size_t slot = 0;          // which of the parent's tool calls it answers
    uint64_t fork = 0;        // a candidate's branch: the fork it answers instead of the parent's slot
    size_t candidate = 0;     // which of the fork's
    std::string staff;        // the employee asked: the agent, or its candidate's instance
    std::string quality_key;  // whose Q its verdicts move: the agent, or "<agent>@<model>"
    std::string model;        // a candidate's model ("" = the agent's own)
    std::string branch;       // the branch of the task's directory it works in ("" = the directory)
    bool audit = false;       // it is the judge auditing its parent's result
    const AgentDefinition* agent = nullptr;
    std::string input;
    int64_t max_turns = 100;
    int turns = 0;
    int nudges = 0;
    int bad_finals = 0;
    int audits = 0;
    bool approved = false;                     // a judge call of its own approved its work
    int64_t approved_writes = 0;               // `writes` when it did (a later write voids it)
    json approved_verdict;                     // that judge's final_output
    int64_t writes = 0;                        // its tools and sub-agents that changed files, so far
    std::map<size_t, int64_t> judge_asked_at;  // its judge calls, by slot: `writes` when asked
    int judge_failures = 0;                    // audits the judge could not rule on
    int verdicts = 0;                          // verdicts on its work, of either path
    std::vector<llm::ChatMessage> env;         // C_ENV
    std::vector<Slot> batch;                   // the running turn's tool calls
    size_t waiting = 0;                        // of them, still running
    std::optional<FinalOutput> claimed;        // a success with the judge
    std::string final_call_id;                 // its final_output call, answered after the audit
    int64_t tokens_in = 0, tokens_out = 0;
    double usd = 0;  // its own turns and its children's
    int64_t started_ms = 0;
    bool compressed_last = false;      // its last turn was preceded by a compression
    std::vector<std::string> written;  // files its file_write calls wrote
    // Files its programs (execute_code, execute_shell) created or changed,
    // as the tool reports them: indexed, but not required in its final_output.
    std::vector<std::string> produced;
    std::set<std::string> succeeded;  // tools and agents it called that succeeded
  };
  // One call of an agent with candidate models: a branch per candidate.
  struct Branch {
    size_t index = 0;  // the candidate's place in the agent's list
    std::string model;
    std::string name;  // its directory's
    json base;         // the manifest it was copied with
    std::optional<FinalOutput> result;
    json changes;  // once closed (with "commit" once recorded)
    bool merged = false;
    std::string why;  // why it was not merged
  };
  struct Fork {
    uint64_t parent = 0;
    size_t slot = 0;
    const AgentDefinition* agent = nullptr;
    std::string input;
    int64_t max_turns = 100;
    std::string from;              // the branch it was made from ("" = the task's directory)
    std::vector<Branch> branches;  // the candidates in the pool, in the agent's order
    size_t waiting = 0;            // branches running, or closing
    std::vector<size_t> opened;    // branches that were made
    std::vector<MergeCandidate> candidates;
    MergePlan plan;
    std::vector<size_t> excluded;  // their merge failed
    std::vector<size_t> merged;    // in the order they were merged
    size_t recorded = 0;           // of `opened`, looked at for a rejected commit
  };
  enum class HireState { hiring, hired, failed };
  struct Staff {
    HireState state = HireState::hiring;
    std::vector<uint64_t> waiting;  // calls that start once hired
  };

  using Pending = driver::PendingCalls<driver::Effects&>;

  void on_query_embedded(driver::Effects& out, const driver::ToolRan& r);
  // Routed (by embedding, or fixed): asks the routing model when the method
  // wants it, else enters.
  void routed(driver::Effects& out);
  void on_route_scores(driver::Effects& out, const driver::ModelAnswered& a);
  void enter(driver::Effects& out);
  // A call of `agent`; an agent with candidates forks into one per candidate.
  void call_agent(driver::Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent, std::string input,
                  int64_t max_turns);
  // `fork` != 0: the call is candidate `candidate` of that fork.
  uint64_t begin(driver::Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent, std::string input,
                 int64_t max_turns, bool audit, uint64_t fork = 0, size_t candidate = 0);
  void start_fork(driver::Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent, std::string input,
                  int64_t max_turns);
  void on_branch_opened(driver::Effects& out, uint64_t fork, size_t candidate, const company::ToolResult& r);
  void branch_ended(driver::Effects& out, uint64_t fork, size_t candidate, FinalOutput fo);
  void plan_fork(driver::Effects& out, uint64_t fork);
  static bool has_changes(const Branch& b);
  static std::string plan_text(const Fork& f);
  void next_merge(driver::Effects& out, uint64_t fork);
  json commit_meta(const Fork& f, const Branch& b, const std::string& why) const;
  void on_merged(driver::Effects& out, uint64_t fork, size_t i, const company::ToolResult& r);
  void record_rejected(driver::Effects& out, uint64_t fork);
  void fork_ended(driver::Effects& out, uint64_t fork);
  void evolve(driver::Effects& out, const std::string& change, const std::vector<CandidatePool::Change>& changes,
              const std::string& agent);
  // The call's result goes to its parent (or ends the task).
  void answer_parent(driver::Effects& out, uint64_t parent, size_t slot, const AgentDefinition& agent,
                     const FinalOutput& fo, json result);
  // Calls and forks whose caller has ended are dropped.
  void drop_orphans();
  void on_hired(driver::Effects& out, const std::string& agent, const driver::HireAnswered& a);
  void turn(driver::Effects& out, uint64_t id);
  int64_t tokens_of(const llm::ChatMessage& m) const;  // its text and tool-call arguments
  int64_t env_tokens(const Call& c) const;
  // Adds `m` to the call's C_ENV, and its tokens to |H|.
  void append(Call& c, llm::ChatMessage m);
  bool compress(driver::Effects& out, uint64_t id);
  // Keeps C_ENV within τ when what compression keeps (the instruction and
  // the latest interaction) is larger by itself: the longest texts after the
  // instruction are shortened, the journal keeping them whole.
  void fit_env(Call& c);
  void on_compressed(driver::Effects& out, uint64_t id, size_t latest, int64_t before, const driver::AskAnswered& a);
  void on_turn(driver::Effects& out, uint64_t id, const driver::AskAnswered& a);
  void run_tools(driver::Effects& out, uint64_t id);
  void dispatch(driver::Effects& out, Call& c, size_t i);
  void slot_done(driver::Effects& out, uint64_t id, size_t i, std::string result);
  void on_final(driver::Effects& out, uint64_t id, const llm::ToolCall& call);
  void reject_final(driver::Effects& out, uint64_t id, const std::string& call_id, const std::string& why);
  void accept_final(driver::Effects& out, uint64_t id, FinalOutput fo, const std::string& call_id);
  void start_audit(driver::Effects& out, uint64_t id);
  double apply_verdict(driver::Effects& out, uint64_t id, const FinalOutput& verdict, const char* asked_by);
  void on_verdict(driver::Effects& out, uint64_t id, const FinalOutput& verdict);
  void end(driver::Effects& out, uint64_t id, FinalOutput fo);
  void finish(driver::Effects& out, bool ok, std::string text);
  driver::Report& report(driver::Effects& out, msg::EventKind kind, std::string text, json data,
                         std::string agent = "") const;
  // An evolution trigger (infiagent.md §10 items 14, 31): journaled with its
  // reason, and reported.
  void trigger(driver::Effects& out, const std::string& kind, const std::string& reason, json data,
               const std::string& agent = "") const;
  bool listening() const { return listening_ && listening_(); }
  std::vector<llm::ChatMessage> prompt_of(const Call& c) const;

  const PyramidSetup& setup_;
  const AgentLibrary& library_;
  QualityScores& quality_;
  CandidatePool* pool_ = nullptr;
  std::string task_id_;
  std::string input_;
  RouteDecision route_;
  std::function<bool()> listening_;
  CallTree tree_;
  WorkspaceIndex index_;
  std::map<uint64_t, Call> calls_;      // running, by tree id
  std::map<std::string, Staff> staff_;  // agents hired or being hired, by employee name
  std::map<uint64_t, Fork> forks_;      // running, by id
  uint64_t last_fork_ = 0;
  Pending pending_;
  int64_t largest_prompt_ = 0;
  int64_t history_tokens_ = 0;
  int64_t calls_made_ = 0;
  int64_t compressions_ = 0;
  json final_;  // the entry call's final_output, once it ended
  bool finished_ = false;
};

}  // namespace kaisha::pyramid
