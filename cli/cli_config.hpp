// Turns the CLI's options into a Config: the file given with --config (or
// the defaults), then --db and --model on top, then the CEO model fallback.
#pragma once

#include <string>

#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::cli {

struct CommonOptions {
  std::string config_file;
  std::string db;
  std::string model;
  std::string session;
  std::string strategy;  // hashiru | effgen | auto; "" = the config's
  bool resume_latest = false;
  bool json = false;
  bool quiet = false;
};

// needs_model: the command runs the CEO, so a model must be resolvable: from
// the config, KAISHA_MODEL, --model, or a local Ollama answering on its
// default address (then ollama:llama3.2). Otherwise an error says how to
// configure one.
Result<config::Config> load_cli_config(const CommonOptions& o, bool needs_model);

// No journal file at `path` yet (nothing has run here): there are no
// sessions, which is not a database error. SQLite URIs and ":memory:" are
// not files, so never "missing".
bool no_journal_yet(const std::string& path);

}  // namespace kaisha::cli
