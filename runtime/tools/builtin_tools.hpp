// BuiltinTools: the tools kaisha ships, offered to the CEO as a ToolSource
// (origin "builtin"): ListFiles, ReadFile, WriteFile (confined to the task's
// workspace, with the created tools' code mounted read-only), GetWebsite (libcurl,
// timeout and size cap), GoogleSearchTool (pluggable search engine; disabled with a
// clear message when none is configured), Calculator (whitelisted grammar)
// and PythonSandboxTool (code run under bubblewrap, fail closed).
// Specs (names, descriptions, JSON Schemas) come from
// data/tools/builtin_tools.json.
//
// Every session gets its own workspace directory, <workspace_root>/<session>,
// created on first use. call() never blocks: file and sandbox work runs on
// the source's worker threads, HTTP on its own curl_multi loop. When the
// tool_invocation switch is off every call is refused with the HASHIRU text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/company/tool_source.hpp"
#include "runtime/core/result.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/tools/file_tools.hpp"
#include "runtime/tools/file_view.hpp"
#include "runtime/tools/tool_switches.hpp"
#include "runtime/tools/web_search.hpp"

namespace kaisha::tools {

struct WebOptions {
  int64_t timeout_ms = 10000;        // HASHIRU's GetWebsite timeout
  int64_t max_page_bytes = 2 << 20;  // download cap
  int64_t max_text_chars = 20000;    // text handed to the model
  std::string search_engine;         // "" (disabled) | "searxng"
  std::string search_url;            // the search engine's base URL
  int max_search_results = 10;
  // Internal addresses (loopback, private, link-local, ...; see
  // http/address_policy.hpp) GetWebsite may connect to: none by default,
  // every one with allow_private_addresses, else those inside one of
  // allowed_private_networks ("10.1.0.0/16", "127.0.0.2").
  bool allow_private_addresses = false;
  std::vector<std::string> allowed_private_networks;
  int max_redirects = 5;  // followed by hand, each hop's address checked
};

struct BuiltinToolsOptions {
  std::string workspace_root;     // sessions' workspaces below it
  std::vector<FileMount> mounts;  // read-only views (the created tools' code)
  FileLimits file_limits;
  sandbox::SandboxLimits code_limits;  // PythonSandboxTool
  WebOptions web;
  std::shared_ptr<SearchEngine> search;    // overrides web.search_engine when set
  std::shared_ptr<ToolSwitches> switches;  // null = always on
  int workers = 2;
};

class BuiltinTools : public company::ToolSource {
 public:
  // Reads the specs; refuses an unknown search engine.
  static Result<std::shared_ptr<BuiltinTools>> create(BuiltinToolsOptions options);
  ~BuiltinTools() override;

  std::string origin() const override { return "builtin"; }
  std::vector<llm::ToolSpec> specs() const override;
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;
  // PythonSandboxTool is a sandbox tool with the sandbox's wall clock;
  // GetWebsite has the web timeout; the others are builtin.
  company::ToolMetadata metadata(const std::string& name) const override;

  // The workspace of `session_id` (created if missing).
  Result<std::string> workspace_for(const std::string& session_id) const;

 private:
  struct Impl;
  explicit BuiltinTools(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::tools
