// Turns the CLI's options into a Config: the file given with --config (or
// the defaults), then --db and --model on top, then the CEO model fallback.
// The file's warnings (older key names) are printed to stderr, one line each.
#pragma once

#include <memory>
#include <string>

#include "runtime/config/config.hpp"
#include "runtime/config/config_loader.hpp"
#include "runtime/core/result.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {

struct CommonOptions {
  std::string config_file;
  std::string db;
  std::string model;
  std::string session;
  std::string strategy;  // hashiru | effgen | auto; "" = the config's
  std::string graph;     // HiVA: the saved graph a task runs (--graph)
  bool resume_latest = false;
  bool json = false;
  bool quiet = false;
};

// needs_model: the command runs the CEO, so a model must be resolvable: from
// the config, KAISHA_MODEL, --model, or a local Ollama answering on its
// default address (then ollama:llama3.2). Otherwise an error says how to
// configure one.
Result<config::Config> load_cli_config(const CommonOptions& o, bool needs_model,
                                       const config::ConfigOverrides& overrides = {});

// Starts sending spans where the config's telemetry.traces says (an OTLP/HTTP
// collector or a file), for this process, under `node` (the cluster node's
// name, "" outside a cluster). Nothing when traces are not configured. An
// error says why the exporter cannot start (a bad URL, a file it cannot open).
Status start_tracing(const config::Config& c, const std::string& node = "");

// No journal file at `path` yet (nothing has run here): there are no
// sessions, which is not a database error. SQLite URIs and ":memory:" are
// not files, so never "missing".
bool no_journal_yet(const std::string& path);

// Opens the journal (c.store_path) for a command that writes it (runs the
// company on it, forgets, compacts, records feedback): read-write with the
// configured durability, so that a journal an earlier kaisha wrote is
// migrated first (reading it as it is would refuse it). The file must exist.
Result<std::unique_ptr<store::JournalStore>> open_to_write(const config::Config& c);

// The session a long-running door (`kaisha serve`, a CEO node) started
// without --session picks up, so that what its last process was doing is
// resumed: the store's latest session (not one a server opened for a client)
// when a task of it, or of a session it hosts, is still marked running (its
// process died) and no live process holds it. "" otherwise: a new session is
// started.
Result<std::string> session_left_running(const config::Config& c);

}  // namespace kaisha::cli
