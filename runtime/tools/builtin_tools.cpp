#include "runtime/tools/builtin_tools.hpp"

#include <mutex>

#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/company/tool_spec_file.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/http/address_policy.hpp"
#include "runtime/http/http_client.hpp"
#include "runtime/http/redirect.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "runtime/tools/calculator.hpp"
#include "runtime/tools/web_page.hpp"
#include "runtime/tools/worker_pool.hpp"

namespace kaisha::tools {

using company::ToolResult;
using Done = std::function<void(ToolResult)>;

namespace {

std::string builtin_str_arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

bool starts_with_ci(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (ascii_lower(s[i]) != prefix[i]) return false;
  return true;
}

std::string cap_text(std::string text, int64_t max_chars, bool& truncated) {
  truncated = static_cast<int64_t>(text.size()) > max_chars;
  if (!truncated) return text;
  return utf8::truncate(text, static_cast<size_t>(max_chars));
}

// PythonSandboxTool: the code is the program, read by python3 from stdin,
// run in the session workspace under bubblewrap. A run that fails inside is
// still a success of the tool (stdout/stderr/return_code say how it went),
// as in HASHIRU; a sandbox that cannot be built refuses to run the code.
ToolResult run_python_code(const std::string& code, const std::string& workspace,
                           const sandbox::SandboxLimits& limits) {
  sandbox::SandboxRequest req;
  req.argv = {"python3", "-I", "-B", "-"};
  req.stdin_data = code;
  req.workspace = workspace;
  req.limits = limits;
  auto r = sandbox::run_sandboxed(req);
  if (!r) return ToolResult::error("Python code execution failed: " + r.error().message);
  if (r->limit)
    return ToolResult::error("Python code execution stopped: " + r->limit->message + ".",
                             json{{"limit", r->limit->limit},
                                  {"limit_value", r->limit->value},
                                  {"enforcement", r->enforcement},
                                  {"stdout", utf8::repair(r->stdout_data)},
                                  {"stderr", utf8::repair(r->stderr_data)}});
  if (r->timed_out)
    return ToolResult::error("Python code execution timed out.", json{{"timeout_ms", limits.wall_timeout_ms},
                                                                      {"stdout", utf8::repair(r->stdout_data)},
                                                                      {"stderr", utf8::repair(r->stderr_data)}});
  json out = {{"stdout", utf8::repair(r->stdout_data)},
              {"stderr", utf8::repair(r->stderr_data)},
              {"return_code", r->exit_code}};
  if (r->output_truncated) out["output_truncated"] = true;
  return ToolResult::success("Python code executed successfully.", out);
}

}  // namespace

struct BuiltinTools::Impl {
  BuiltinToolsOptions options;
  std::vector<llm::ToolSpec> specs;
  // Declared in this order so that the HTTP loop (whose cancelled requests
  // hand work to the pool) is destroyed before the pool.
  WorkerPool pool;
  http::HttpClient http;
  std::shared_ptr<SearchEngine> search;
  std::shared_ptr<const http::AddressPolicy> web_policy;  // GetWebsite's

  explicit Impl(BuiltinToolsOptions o) : options(std::move(o)), pool(options.workers) {}

  Result<FileView> view_for(const std::string& session) const {
    auto ws = workspace(session);
    if (!ws) return ws.error();
    return FileView::open(*ws, options.mounts);
  }

  Result<std::string> workspace(const std::string& session) const {
    return session_workspace(options.workspace_root, session);
  }

  // Runs `work` on a worker; a shutdown or an exception still answers.
  void on_pool(const std::string& tool, Done done, std::function<ToolResult()> work) {
    pool.submit_tool(std::move(work), std::move(done), [tool](bool, const std::string& why) {
      return ToolResult::error(company::texts::tool_failed(tool), why);
    });
  }

  // GET `url`, following up to `redirects_left` redirects by hand so that
  // every hop goes through the address policy; `then` gets the URL that
  // answered last and its result (on the HTTP loop thread).
  void fetch_page(std::string url, int redirects_left, std::function<void(std::string, http::HttpResult)> then) {
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = url;
    req.headers = {{"User-Agent", "kaisha GetWebsite"}, {"Accept", "text/html,application/xhtml+xml,*/*;q=0.8"}};
    http::HttpOptions opts;
    opts.timeout_ms = options.web.timeout_ms;
    opts.connect_timeout_ms = std::min<int64_t>(options.web.timeout_ms, 5000);
    opts.max_response_bytes = static_cast<size_t>(options.web.max_page_bytes);
    opts.address_policy = web_policy;
    http::HttpCallbacks cb;
    cb.on_done = [this, url, redirects_left, then = std::move(then)](http::HttpResult r) mutable {
      const std::string location = r.header("location");
      if (r.error != http::TransportError::none || !http::is_redirect_status(r.status) || location.empty())
        return then(url, std::move(r));
      auto next = http::redirect_target(url, location);
      if (next && redirects_left > 0) return fetch_page(std::move(next).value(), redirects_left - 1, std::move(then));
      r.error = http::TransportError::other;
      r.error_message = next ? url + " redirects more than " + std::to_string(options.web.max_redirects) + " times"
                             : next.error().message;
      then(url, std::move(r));
    };
    http.submit(std::move(req), opts, std::move(cb));
  }

  void get_website(const json& args, Done done) {
    const std::string url = builtin_str_arg(args, "url");
    const std::string output_type = args.value("output_type", std::string("summary"));
    const std::string selector = builtin_str_arg(args, "css_selector");
    if (!starts_with_ci(url, "http://") && !starts_with_ci(url, "https://"))
      return done(ToolResult::error("GetWebsite: only http:// and https:// URLs can be fetched, got '" + url + "'"));
    const WebOptions web = options.web;
    // The page is processed on a worker: the HTTP loop must not do the work.
    auto on_page = [this, done, url, output_type, selector, web](std::string final_url, http::HttpResult r) {
      on_pool("GetWebsite", done, [r = std::move(r), url, final_url, output_type, selector, web]() {
        const std::string via = final_url == url ? "" : " (redirected from " + url + ")";
        if (r.error == http::TransportError::too_large)
          return ToolResult::error("Request failed: the page at " + final_url + via + " is larger than the " +
                                   std::to_string(web.max_page_bytes) + "-byte limit of GetWebsite");
        if (r.error == http::TransportError::timeout)
          return ToolResult::error("Request failed: " + final_url + via + " did not answer within " +
                                   std::to_string(web.timeout_ms) + " ms");
        if (r.error == http::TransportError::refused)
          return ToolResult::error("Request failed: " + r.error_message + via +
                                   ". GetWebsite does not connect to loopback, private or link-local addresses "
                                   "unless tools.web.allow_private_addresses allows them");
        if (r.error != http::TransportError::none) return ToolResult::error("Request failed: " + r.error_message);
        if (!r.ok())
          return ToolResult::error("Request failed: HTTP " + std::to_string(r.status) + " from " + final_url + via);
        std::string html = to_utf8(r.body);
        if (!selector.empty()) {
          auto picked = select_css(html, selector);
          if (!picked) return ToolResult::error("GetWebsite: " + picked.error().message);
          html = std::move(picked).value();
        }
        std::string text = output_type == "html" ? html : html_to_text(html);
        if (output_type == "summary") text = summarize_text(text);
        bool truncated = false;
        text = cap_text(std::move(text), web.max_text_chars, truncated);
        ToolResult res = ToolResult::success("Website fetched successfully", text);
        if (truncated) {
          res.message += " (output truncated to " + std::to_string(web.max_text_chars) + " characters)";
          res.extra["truncated"] = true;
        }
        return res;
      });
    };
    fetch_page(url, web.max_redirects, std::move(on_page));
  }

  void web_search(const json& args, Done done) {
    if (!search) return done(ToolResult::error(kSearchDisabled));
    std::string query = builtin_str_arg(args, "query");
    const std::string site = builtin_str_arg(args, "website");
    if (!site.empty()) query += " site:" + site;
    search->search(query, options.web.max_search_results, [done](Result<std::vector<SearchHit>> r) {
      if (!r) return done(ToolResult::error(r.error().message));
      json hits = hits_to_json(*r);
      done(ToolResult::success("Search completed successfully", hits));
    });
  }
};

BuiltinTools::BuiltinTools(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BuiltinTools::~BuiltinTools() = default;

Result<std::shared_ptr<BuiltinTools>> BuiltinTools::create(BuiltinToolsOptions options) {
  auto specs = company::load_tool_specs(data_file("data/tools/builtin_tools.json"));
  if (!specs) return specs.error();
  if (options.workspace_root.empty()) return Error{"config", "tools: the workspace root is empty"};
  const std::string engine = options.web.search_engine;
  if (!options.search)
    if (Status s = check_search_config(engine, options.web.search_url); !s) return s.error();
  std::vector<http::IpNetwork> allowed;
  for (const std::string& n : options.web.allowed_private_networks) {
    auto net = http::IpNetwork::parse(n);
    if (!net) return Error{"config", "tools.web.allow_private_addresses: " + net.error().message};
    allowed.push_back(net.value());
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->web_policy =
      std::make_shared<http::AddressPolicy>(impl->options.web.allow_private_addresses, std::move(allowed));
  impl->specs = std::move(specs).value();
  impl->search = impl->options.search;
  if (!impl->search && engine == "searxng")
    impl->search = make_searxng_engine(impl->http, impl->options.web.search_url, impl->options.web.timeout_ms);
  return std::shared_ptr<BuiltinTools>(new BuiltinTools(std::move(impl)));
}

std::vector<llm::ToolSpec> BuiltinTools::specs() const { return impl_->specs; }

Result<std::string> BuiltinTools::workspace_for(const std::string& session_id) const {
  auto view = impl_->view_for(session_id);
  if (!view) return view.error();
  return view->workspace();
}

company::ToolMetadata BuiltinTools::metadata(const std::string& name) const {
  company::ToolMetadata m;
  if (name == "PythonSandboxTool") {
    m.category = company::ToolCategory::sandbox;
    m.timeout_ms = impl_->options.code_limits.wall_timeout_ms;
  } else if (name == "GetWebsite" || name == "GoogleSearchTool") {
    m.timeout_ms = impl_->options.web.timeout_ms;
  }
  return m;
}

void BuiltinTools::call(const std::string& name, const json& args, const company::ToolCallContext& ctx, Done done) {
  Impl& d = *impl_;
  if (d.options.switches && !d.options.switches->tool_invocation.load())
    return done(ToolResult::error(company::texts::kToolInvocationDisabled));
  const std::string session = ctx.session_id;
  if (name == "ListFiles" || name == "ReadFile" || name == "WriteFile") {
    return d.on_pool(name, std::move(done), [&d, name, args, session]() {
      auto view = d.view_for(session);
      if (!view) return ToolResult::error(name + ": " + view.error().message);
      const FileLimits& lim = d.options.file_limits;
      if (name == "ListFiles") return list_files(*view, builtin_str_arg(args, "directory"), lim);
      if (name == "ReadFile") return read_file(*view, builtin_str_arg(args, "file_path"), lim);
      return write_file(*view, builtin_str_arg(args, "file_path"), builtin_str_arg(args, "content"), lim);
    });
  }
  if (name == "Calculator") {
    // Microseconds of pure computation: answered on the caller's thread.
    auto r = calculate(builtin_str_arg(args, "expression"));
    if (!r) return done(ToolResult::error(r.error().message, json{{"error_type", r.error().code}}));
    return done(ToolResult::success("Calculated " + r.value()["formatted"].get<std::string>(), r.value()));
  }
  if (name == "PythonSandboxTool") {
    return d.on_pool(name, std::move(done), [&d, args, session]() {
      auto view = d.view_for(session);
      if (!view) return ToolResult::error("PythonSandboxTool: " + view.error().message);
      return run_python_code(builtin_str_arg(args, "code"), view->workspace(), d.options.code_limits);
    });
  }
  if (name == "GetWebsite") return d.get_website(args, std::move(done));
  if (name == "GoogleSearchTool") return d.web_search(args, std::move(done));
  done(ToolResult::error(company::texts::tool_not_found(name)));
}

}  // namespace kaisha::tools
