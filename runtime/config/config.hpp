// kaisha's configuration: what a YAML file (`--config FILE`) can set, with the
// defaults a user gets without one. Loading lives in config_loader.hpp.
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/config/mcp_server_config.hpp"
#include "runtime/config/serve_config.hpp"
#include "runtime/config/telemetry_config.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::config {

// One LLM endpoint. Model refs name it by key: "ollama:llama3.2" uses the
// provider keyed "ollama". Custom keys are allowed ("groq") with an explicit
// dialect.
struct ProviderConfig {
  std::string name;             // the key in `providers:`
  std::string dialect;          // "openai" | "ollama" | "gemini" | "anthropic"
  std::string base_url;         // e.g. http://127.0.0.1:11434 or https://api.openai.com/v1
  std::string api_key;          // may be empty (Ollama, local servers)
  int max_concurrency = 8;      // in-flight requests to this provider
  int64_t timeout_ms = 120000;  // whole-request timeout per attempt
  int64_t connect_timeout_ms = 5000;
  std::map<std::string, std::string> headers;  // extra HTTP headers
};

// Retries on 429, 5xx, connection errors and timeouts: exponential backoff
// base_delay_ms * 2^(attempt-1) with full jitter, capped at max_delay_ms; a
// Retry-After header replaces the computed delay and is honoured beyond
// max_delay_ms, up to its own ceiling max_retry_after_ms (a provider asking
// for longer is retried after the ceiling).
struct RetryConfig {
  int max_attempts = 4;  // total attempts, including the first
  int64_t base_delay_ms = 500;
  int64_t max_delay_ms = 8000;
  int64_t max_retry_after_ms = 60000;
  double multiplier = 2.0;  // each retry's delay bound is the previous one's times this (>= 1)
};

struct CeoConfig {
  std::string model;                 // model ref; empty = from KAISHA_MODEL or autodetect
  double temperature = 0.2;          // HASHIRU evaluates at 0.2
  int max_turns = 30;                // model calls per user message before giving up
  int max_malformed_tool_calls = 3;  // bounded retries when tool-call JSON is bad
  std::string system_prompt_file;    // empty = prompts/ceo_system.md
  bool stream = false;               // ask providers to stream (SSE / NDJSON) answers
};

// One entry of an employee tool grant as written in the config: a tool name
// (Calculator), or every tool of a provider (builtin, user, memory,
// mcp:<server>). `where` is "<file>:<line>: <key>" for later errors (an
// unknown tool name is only known once the tool sources exist).
struct GrantEntry {
  std::string tool;
  std::string where;
};

// Which tools employees may call (employee.tools). An employee gets the
// union of `all`, its name's list and its base model's list; with no entry
// it gets no tools and answers with one model call (HASHIRU's employees).
struct EmployeeGrants {
  std::vector<GrantEntry> all;
  std::map<std::string, std::vector<GrantEntry>> agents;  // by agent name
  std::map<std::string, std::vector<GrantEntry>> models;  // by base model (cost-table name)
  bool empty() const { return all.empty() && agents.empty() && models.empty(); }
};

struct EmployeeConfig {
  int64_t max_output_tokens = 1024;  // sent as max_tokens; bounds each reservation
  double temperature = 0.2;
  bool stream = false;               // ask providers to stream answers
  EmployeeGrants tools;              // tool grants; none by default
  int max_tool_iterations = 10;      // model calls per ask of an employee with tools
  int max_malformed_tool_calls = 3;  // answers with bad tool-call JSON it may send per ask
};

// A tool's declared price (tools.costs overrides what its source declares):
// invoke_resource_cost is held on the resource ledger while a call runs,
// invoke_expense_cost is charged in USD per call.
struct ToolCostConfig {
  double invoke_resource_cost = 0;
  double invoke_expense_cost = 0;
};

// tools.failures: what happens when a tool call fails (docs/tools.md,
// "When a tool fails"): transient errors of tools safe to repeat are retried
// with a doubling backoff, less a deterministic jitter; a tool failing
// breaker_failures times in a row is refused at once for
// breaker_cooldown_ms, then tried again.
struct ToolFailureConfig {
  int max_attempts = 3;  // calls in all, the first included; 1 = never retried
  int64_t backoff_ms = 500;
  int64_t max_backoff_ms = 10000;
  double backoff_jitter = 0.5;  // share of each wait that may be taken off, in [0, 1]
  int breaker_failures = 5;     // 0 = no breaker
  int64_t breaker_cooldown_ms = 60000;
  int breaker_half_open_calls = 1;
};

// hashiru.md §2.4: the reclaimable resource ledger (percentage points of the
// memory budget) and the non-reclaimable expense ledger (USD).
struct BudgetConfig {
  std::string resource_mode = "fixed";  // fixed | host_memory | paper_16GiB_is_100
  double resource_total = 100;          // used when resource_mode == fixed
  double expense_total = 10.0;          // USD
  int max_agents = 0;                   // concurrently hired employees; 0 = unlimited
  int max_inflight_asks = 0;            // concurrent AskAgent calls; 0 = unlimited
};

// hashiru.md §9 item 54: the eight runtime switches.
struct Switches {
  bool agent_creation = true;
  bool local_agents = true;
  bool cloud_agents = true;
  bool tool_creation = true;
  bool tool_invocation = true;
  bool resource_budget = true;
  bool economy_budget = true;
  bool memory = true;
};

// Paths set in a file (store, cost_table, prompts_dir, ceo.system_prompt_file)
// are resolved by the loader against that file's directory; defaults stay as
// written here.
// The judge (infiagent.md §10): one actor per company that audits a result
// against its instruction. It is started when something is audited: effGen's
// subtask results (`subtasks`, with strategy effgen or auto) or the HASHIRU
// CEO's final answers (`final_answer`). The pyramid's judge is an agent of its
// library, configured in its section. `model`, `subtasks` and `max_retries`
// were effgen.judge_model, effgen.judge and effgen.max_judge_retries, which
// the loader still reads (with a warning in Config::warnings).
struct JudgeConfig {
  // A cost-table name or model ref; "" = the running strategy's own choice
  // (its catalog entry's audit_model: effGen's planner model), else ceo.model.
  std::string model;
  bool subtasks = true;       // audit every effGen subtask result
  bool final_answer = false;  // audit the HASHIRU CEO's final answer
  int max_retries = 3;        // the producer's retries after a rejection (4 judge calls)
};

// effGen's short-term tier applied to the CEO's conversation (effgen.md §8.1,
// §23 item 35): when its estimated tokens reach threshold · context_tokens,
// everything but the system prompt and the last keep_recent messages is
// replaced by a summary the CEO's model writes.
struct ShortTermConfig {
  bool enabled = true;
  int64_t context_tokens = 32768;  // the CEO model's context budget (the cost table has no such column)
  double threshold = 0.85;
  int keep_recent = 10;
};

// The memory function (hashiru.md §2.8, effgen.md §8); on when
// switches.memory is. Memories live in their own SQLite file (see
// runtime/memory/memory_store.hpp for why).
struct MemoryConfig {
  std::string path;                    // "" = the store path with ".memory.db" for ".db"
  std::string embedding_model;         // model ref (ollama:all-minilm, openai:text-embedding-3-small); "" = built-in
  int embedding_dims = 384;            // of the built-in hashed n-gram embedder
  double threshold = 0.1;              // cosine similarity a retrieved memory needs (HASHIRU: 0.1)
  int top_k = 5;                       // memories injected per turn (HASHIRU: 5)
  bool auto_retrieve = true;           // retrieve and inject before each CEO turn
  double lexical_weight = 0.3;         // FTS5 share of the hybrid score; 0 = vectors only
  std::string ranking = "similarity";  // similarity | effgen (0.3R + 0.2F + 0.3I + 0.2S)
  int context_messages = 3;            // recent conversation texts joined into the retrieval query
  int exact_below = 10000;             // exact vector search below this many memories, HNSW above
  std::string index_dir;               // "" = <memory path>.index
  // Error reflection (HASHIRU Case Study 4): when the judge rejects the CEO's
  // final answer for good, the CEO writes a critique memory.
  bool error_reflection = true;
  ShortTermConfig short_term;
};

// The CEO's built-in tools and the tools it creates (hashiru.md §2.7, §3.3).
// Code the system did not ship runs under bubblewrap with the sandbox limits.
struct ToolsConfig {
  std::string workspace_root;         // "" = <store dir>/kaisha-work; a session works in <root>/<session>
  std::string user_tools_dir;         // "" = <store dir>/kaisha-tools (ToolCreator's tools)
  int64_t max_read_bytes = 1 << 20;   // ReadFile returns at most this much
  int64_t max_write_bytes = 1 << 20;  // WriteFile refuses more
  int64_t max_list_entries = 1000;    // ListFiles returns at most this many
  int64_t web_timeout_ms = 10000;     // GetWebsite (HASHIRU: 10 s)
  int64_t max_page_bytes = 2 << 20;   // GetWebsite download cap
  // GetWebsite and internal addresses (loopback, private, link-local):
  // refused unless `web_allow_private_addresses` (true), or inside one of
  // `web_allowed_private_networks` (YAML: a list instead of true/false).
  bool web_allow_private_addresses = false;
  std::vector<std::string> web_allowed_private_networks;
  std::string web_search_engine;       // "" = GoogleSearchTool disabled | searxng
  std::string web_search_url;          // the search engine's base URL
  int64_t sandbox_timeout_ms = 10000;  // wall clock per sandboxed run (HASHIRU: 10 s)
  int64_t sandbox_cpu_seconds = 10;
  int64_t sandbox_memory_mb = 512;
  int64_t sandbox_max_processes = 32;
  int64_t sandbox_disk_mb = 1024;               // the whole workspace, per run
  bool tools_network = false;                   // Python tools' calls may use the network (never PythonSandboxTool)
  std::vector<std::string> env;                 // host variables created tools may read (credentials)
  std::map<std::string, ToolCostConfig> costs;  // declared per-call costs by tool name
  ToolFailureConfig failures;
  // Tools safe to run twice with the same arguments besides those their
  // spec or server says are (retried when they fail transiently, run again
  // on a resume): e.g. an MCP server's read-only tools.
  std::vector<std::string> repeatable;
};

// The journal's promises on disk and how long it keeps history (docs/durability.md).
struct JournalConfig {
  // normal: a committed write survives the process being killed (synchronous=NORMAL).
  // full: it also survives a power cut or kernel crash (synchronous=FULL), at a cost per commit.
  std::string durability = "normal";
  // Retention, applied when a process opens the store: sessions older than
  // keep_days days, and all but the newest keep_sessions sessions, are forgotten
  // (`kaisha forget`). 0 = keep (the default: history is kept until asked).
  int64_t keep_days = 0;
  int64_t keep_sessions = 0;
};

struct Config {
  std::string source;  // file the config came from, "" for defaults
  std::string store_path = "kaisha.db";
  JournalConfig journal;
  std::string cost_table_file;  // empty = data/cost_table.yaml of the install
  std::string prompts_dir;      // empty = prompts/ of the install
  CeoConfig ceo;
  EmployeeConfig employee;
  std::map<std::string, ProviderConfig> providers;
  RetryConfig retry;
  BudgetConfig budget;
  Switches switches;
  std::string strategy = "hashiru";  // a name in the strategy catalog (runtime/catalog)
  // Each strategy's own section, by section name (its catalog entry's
  // config_section), as its entry's read_settings made it from the file (the
  // defaults when the file has none); read them with strategy_settings<T>().
  std::map<std::string, std::any> strategy_settings;
  // The same sections as JSON, as the file wrote them (absent when the file
  // has none): what a strategy registered without a reader of its own gets
  // (runtime/driver/driven_strategy.hpp).
  std::map<std::string, json> strategy_sections;
  JudgeConfig judge;
  MemoryConfig memory;
  ToolsConfig tools;
  std::vector<McpServerConfig> mcp_servers;  // MCP servers whose tools kaisha uses
  ServeConfig serve;                         // how `kaisha serve --http` listens
  TelemetryConfig telemetry;                 // where traces go (off by default)
  // Older key names the file used, one line each, for the user to see
  // ("config.yaml:4: 'effgen.judge_model' is deprecated; ..."): the CLI prints
  // them to stderr. They do not change what was read.
  std::vector<std::string> warnings;
};

// The settings of the strategy whose section is `section`, of type T (what
// its entry's read_settings makes); T's defaults when the config holds none
// (a Config made in code rather than loaded). Throws std::bad_any_cast when
// the section holds another type: a programming error.
template <class T>
T strategy_settings(const Config& config, const std::string& section) {
  auto it = config.strategy_settings.find(section);
  if (it == config.strategy_settings.end() || !it->second.has_value()) return T{};
  return std::any_cast<const T&>(it->second);
}

}  // namespace kaisha::config
