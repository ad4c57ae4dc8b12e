#include "runtime/tools/user_tools.hpp"

#include "runtime/company/tool_spec_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/sandbox/python_tool.hpp"
#include "runtime/tools/builtin_tools.hpp"
#include "runtime/tools/file_view.hpp"
#include "runtime/tools/tool_index.hpp"
#include "runtime/tools/tool_validator.hpp"
#include "runtime/tools/worker_pool.hpp"

namespace kaisha::tools {

namespace fs = std::filesystem;
using company::ToolResult;
using Done = std::function<void(ToolResult)>;

namespace {

// One loaded Python tool.
struct LoadedTool {
  ValidatedTool tool;
  std::string host_file;   // where the source is
  std::string shown_file;  // how the CEO sees it, e.g. src/tools/user_tools/X.py
  bool shipped = false;    // from the default (read-only) directory
  std::string code_hash;   // of the source that runs
};

// Every version of every created tool, kept beside them as JSON (the index's
// neighbour): {"<name>": [{"version", "code_hash", "code"}, ...], ...}.
inline const char* kToolVersionsFile = ".kaisha-versions.json";

// A missing file is no versions; an unreadable one too (each tool then
// starts again at its code on disk), with the reason in `errors`.
std::map<std::string, company::ToolVersions> load_versions(const std::string& dir, std::vector<std::string>& errors) {
  std::map<std::string, company::ToolVersions> out;
  const std::string path = dir + "/" + kToolVersionsFile;
  if (!fs::exists(path)) return out;
  auto text = read_text_file(path);
  json j = text ? json::parse(*text, nullptr, false) : json();
  if (!j.is_object()) {
    errors.push_back(path + ": not a JSON object; tool versions start again from the files");
    return out;
  }
  for (const auto& [name, list] : j.items()) {
    auto v = company::ToolVersions::from_json(list, path + ": " + name);
    if (!v) {
      errors.push_back(v.error().message);
      continue;
    }
    out.emplace(name, std::move(v).value());
  }
  return out;
}

std::string user_str_arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

bool valid_tool_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || !std::isalpha(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The *.py files directly in `dir`, sorted.
std::vector<fs::path> python_files(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

Status write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return Error{"io", "cannot write " + tmp + ": " + std::strerror(errno)};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return Error{"io", "cannot create " + path + ": " + std::strerror(err)};
  }
  return Status::Ok();
}

// A Python tool's return value as the HASHIRU envelope: a dict with a
// "status" is taken as one; anything else is the output of a success.
ToolResult envelope_of(const std::string& name, const json& r) {
  if (r.is_object() && r.contains("status") && r["status"].is_string()) {
    const std::string status = r["status"];
    if (status == "success" || status == "error") {
      ToolResult res;
      res.ok = status == "success";
      res.message = r.contains("message")
                        ? (r["message"].is_string() ? r["message"].get<std::string>() : dump_text(r["message"]))
                        : "";
      res.output = r.value("output", json(nullptr));
      for (const auto& [k, v] : r.items())
        if (k != "status" && k != "message" && k != "output") res.extra[k] = v;
      return res;
    }
  }
  return ToolResult::success("Tool " + name + " ran successfully", r);
}

}  // namespace

struct UserTools::Impl {
  UserToolsOptions options;
  std::vector<llm::ToolSpec> own_specs;  // ToolCreator, ToolDeletor
  std::vector<std::string> errors;       // load errors at start

  mutable std::mutex mu;  // guards `tools`
  std::map<std::string, LoadedTool> tools;
  std::mutex create_mu;  // one ToolCreator/ToolDeletor at a time
  ToolIndex user_index;  // guarded by create_mu after start
  // Guarded by mu; written under create_mu.
  std::map<std::string, company::ToolVersions> versions;

  WorkerPool pool;

  explicit Impl(UserToolsOptions o) : options(std::move(o)), pool(options.workers) {}

  bool taken_by_other_source(const std::string& name) const {
    return options.reserved_names.count(name) || name == "ToolCreator" || name == "ToolDeletor";
  }

  // Loads both directories: files the index knows unchanged are taken from
  // it, the others are validated in one sandbox run.
  Status save_versions() const {
    json j = json::object();
    {
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& [name, v] : versions) j[name] = v.to_json();
    }
    return write_atomically(options.user_dir + "/" + kToolVersionsFile, j.dump(1));
  }

  void load_all() {
    struct File {
      fs::path path;
      std::string shown, hash;
      bool shipped;
      std::optional<ValidatedTool> tool;
      std::string code;
    };
    const ToolIndex shipped_index = ToolIndex::load(options.default_dir);
    std::vector<File> files;
    std::vector<ToolCode> sources;
    std::vector<size_t> to_validate;
    for (int pass = 0; pass < 2; ++pass) {
      const bool shipped = pass == 0;
      const char* prefix = shipped ? kDefaultToolsPrefix : kUserToolsPrefix;
      for (const auto& p : python_files(shipped ? options.default_dir : options.user_dir)) {
        auto code = read_text_file(p.string());
        File f{p,
               std::string(prefix) + "/" + p.filename().string(),
               content_hash(code ? *code : ""),
               shipped,
               {},
               shipped ? "" : (code ? *code : "")};
        f.tool = (shipped ? shipped_index : user_index).find(p.filename().string(), f.hash);
        if (!f.tool) {
          to_validate.push_back(files.size());
          sources.push_back({p.stem().string(), f.shown, code ? *code : ""});
        }
        files.push_back(std::move(f));
      }
    }
    auto validated = validate_python_tools(sources, options.load_limits);
    if (!validated && !sources.empty()) errors.push_back("Python tools not loaded: " + validated.error().message);
    for (size_t k = 0; validated && k < to_validate.size(); ++k) {
      File& f = files[to_validate[k]];
      auto& r = (*validated)[k];
      if (!r) {
        errors.push_back(f.shown + ": " + r.error().message);
        continue;
      }
      f.tool = std::move(r).value();
      if (!f.shipped) user_index.put(f.path.filename().string(), f.hash, *f.tool);
    }
    if (validated && !to_validate.empty()) (void)user_index.save(options.user_dir);
    auto kept = load_versions(options.user_dir, errors);
    bool changed = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      versions = std::move(kept);
      for (File& f : files) {
        if (!f.tool) continue;
        const std::string name = f.tool->spec.name;
        if (taken_by_other_source(name) || tools.count(name)) {
          errors.push_back(f.shown + ": a tool named " + name + " already exists; skipped");
          continue;
        }
        if (!f.shipped) {
          // A file written by hand since (or before versions were kept) is its next version.
          company::ToolVersions& v = versions[name];
          const int before = v.latest() ? v.latest()->version : 0;
          changed |= v.add(f.code).version != before;
        }
        tools[name] = LoadedTool{std::move(*f.tool), f.path.string(), f.shown, f.shipped, f.hash};
      }
    }
    if (changed) (void)save_versions();
  }

  void on_pool(const std::string& tool, Done done, std::function<ToolResult()> work) {
    pool.submit_tool(std::move(work), std::move(done), [tool](bool, const std::string& why) {
      return ToolResult::error(company::texts::tool_failed(tool), why);
    });
  }

  ToolResult create_tool(const json& args) {
    const std::string name = user_str_arg(args, "name");
    const std::string code = user_str_arg(args, "tool_code");
    // HASHIRU's answer to a tool that does not load (hashiru.md §2.7).
    auto not_loaded = [&](const std::string& why) {
      return ToolResult::error("ToolCreator with " + dump_text(args) +
                                   " doesn't follow the required format, please read the other tool "
                                   "implementations for reference. " +
                                   why,
                               json{{"loader_error", why}});
    };
    if (!valid_tool_name(name))
      return ToolResult::error("ToolCreator: the name '" + name +
                               "' is invalid; use letters, digits and '_', starting with a letter (at most 64)");
    if (taken_by_other_source(name))
      return ToolResult::error("ToolCreator: " + name + " is the name of a built-in tool; choose another name");
    std::lock_guard<std::mutex> serial(create_mu);
    {
      std::lock_guard<std::mutex> lock(mu);
      if (auto it = tools.find(name); it != tools.end() && it->second.shipped)
        return ToolResult::error("ToolCreator: " + name + " is a shipped tool (" + it->second.shown_file +
                                 ") and cannot be replaced; choose another name");
    }
    const std::string shown = std::string(kUserToolsPrefix) + "/" + name + ".py";
    auto validated = validate_python_tools({{name, shown, code}}, options.load_limits);
    if (!validated) {
      // The sandbox could not load anything: nothing of the tool ran.
      if (validated.error().code.rfind("sandbox_", 0) == 0)
        return ToolResult::error("ToolCreator: tools cannot be loaded here: " + validated.error().message);
      return not_loaded(validated.error().message);
    }
    auto& one = validated->front();
    if (!one) return not_loaded(one.error().message);
    if (one->spec.name != name)
      return not_loaded("ValueError: inputSchema['name'] is '" + one->spec.name + "' but the tool is named '" + name +
                        "'; they must be the same");
    const std::string host = options.user_dir + "/" + name + ".py";
    if (Status s = write_atomically(host, code); !s) return ToolResult::error("ToolCreator: " + s.error().message);
    user_index.put(name + ".py", content_hash(code), *one);
    (void)user_index.save(options.user_dir);  // a lost index only costs a validation at the next start
    int version = 1;
    {
      std::lock_guard<std::mutex> lock(mu);
      tools[name] = LoadedTool{std::move(one).value(), host, shown, false, content_hash(code)};
      // The new code is the next version; the ones before it stay in the versions file.
      version = versions[name].add(code).version;
    }
    (void)save_versions();  // lost, the next start counts the file on disk as one version
    return ToolResult::success("Tool created successfully",
                               json{{"tool_file_path", shown}, {"tool_name", name}, {"version", version}});
  }

  ToolResult delete_tool(const json& args) {
    const std::string name = user_str_arg(args, "name");
    const std::string file_path = user_str_arg(args, "file_path");
    const std::string prefix = std::string(kUserToolsPrefix) + "/";
    if (file_path.rfind(prefix, 0) != 0) return ToolResult::error("File path must start with " + prefix);
    const std::string file = file_path.substr(prefix.size());
    if (file.size() <= 3 || file.find('/') != std::string::npos || file.find("..") != std::string::npos ||
        file.compare(file.size() - 3, 3, ".py") != 0 || file[0] == '.')
      return ToolResult::error("ToolDeletor: '" + file_path + "' is not a tool file directly in " + prefix +
                               " (expected " + prefix + "<name>.py)");
    std::lock_guard<std::mutex> serial(create_mu);
    const std::string host = options.user_dir + "/" + file;
    struct stat st {};
    if (lstat(host.c_str(), &st) != 0) return ToolResult::error("Tool file " + file_path + " not found");
    // unlink removes a symlink itself, never its target.
    if (unlink(host.c_str()) != 0)
      return ToolResult::error("ToolDeletor: cannot delete " + file_path + ": " + std::strerror(errno));
    user_index.erase(file);
    (void)user_index.save(options.user_dir);
    std::string removed;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto it = tools.begin(); it != tools.end();) {
        if (it->second.host_file == host) {
          removed = it->first;
          it = tools.erase(it);
        } else {
          ++it;
        }
      }
    }
    return ToolResult::success("Tool deleted successfully",
                               json{{"tool_file_path", file_path}, {"tool_name", removed.empty() ? name : removed}});
  }

  ToolResult run_tool(const LoadedTool& t, const json& args, const std::string& session) {
    const std::string& name = t.tool.spec.name;
    auto ws = session_workspace(options.workspace_root, session);
    if (!ws) return ToolResult::error(company::texts::tool_failed(name), ws.error().message);
    auto r = sandbox::run_python_tool(t.host_file, t.tool.entry_class, args, *ws, options.limits,
                                      sandbox::ToolAccess{options.env_allow, options.network});
    if (!r) return ToolResult::error(company::texts::tool_failed(name), r.error().message);
    return envelope_of(name, *r);
  }
};

UserTools::UserTools(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
UserTools::~UserTools() = default;

Result<std::shared_ptr<UserTools>> UserTools::create(UserToolsOptions options) {
  auto specs = company::load_tool_specs(data_file("data/tools/tool_creation_tools.json"));
  if (!specs) return specs.error();
  if (options.user_dir.empty() || options.workspace_root.empty())
    return Error{"config", "tools: the user tools directory and the workspace root must be set"};
  std::error_code ec;
  fs::create_directories(options.user_dir, ec);
  if (ec)
    return Error{"config", "tools: cannot create the user tools directory " + options.user_dir + ": " + ec.message()};
  auto impl = std::make_shared<Impl>(std::move(options));
  impl->own_specs = std::move(specs).value();
  impl->user_index = ToolIndex::load(impl->options.user_dir);
  impl->load_all();
  return std::shared_ptr<UserTools>(new UserTools(std::move(impl)));
}

std::vector<llm::ToolSpec> UserTools::specs() const {
  std::vector<llm::ToolSpec> out = impl_->own_specs;
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (const auto& [name, t] : impl_->tools) out.push_back(t.tool.spec);
  return out;
}

std::vector<std::string> UserTools::load_errors() const { return impl_->errors; }

company::ToolMetadata UserTools::metadata(const std::string& name) const {
  company::ToolMetadata m;
  if (name == "ToolCreator" || name == "ToolDeletor") return m;  // builtin, run here
  m.timeout_ms = impl_->options.limits.wall_timeout_ms;
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->tools.find(name);
  if (it == impl_->tools.end()) {
    m.category = company::ToolCategory::created;
    return m;
  }
  m.code_hash = it->second.code_hash;
  if (it->second.shipped) {
    m.category = company::ToolCategory::sandbox;
    return m;
  }
  m.category = company::ToolCategory::created;
  if (auto v = impl_->versions.find(name); v != impl_->versions.end() && v->second.latest())
    m.version = v->second.latest()->version;
  return m;
}

company::ToolVersions UserTools::versions(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->versions.find(name);
  return it == impl_->versions.end() ? company::ToolVersions{} : it->second;
}

company::ToolCost UserTools::cost(const std::string& name) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->tools.find(name);
  return it == impl_->tools.end() ? company::ToolCost{} : company::ToolCost::from_declared(it->second.tool.costs);
}

void UserTools::call(const std::string& name, const json& args, const company::ToolCallContext& ctx, Done done) {
  Impl& d = *impl_;
  const auto& sw = d.options.switches;
  if (sw && !sw->tool_invocation.load()) return done(ToolResult::error(company::texts::kToolInvocationDisabled));
  if (name == "ToolCreator") {
    if (sw && !sw->tool_creation.load()) return done(ToolResult::error(company::texts::kToolCreationDisabled));
    return d.on_pool(name, std::move(done), [&d, args] { return d.create_tool(args); });
  }
  if (name == "ToolDeletor") return d.on_pool(name, std::move(done), [&d, args] { return d.delete_tool(args); });
  LoadedTool tool;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    auto it = d.tools.find(name);
    if (it == d.tools.end()) return done(ToolResult::error(company::texts::tool_not_found(name)));
    tool = it->second;
  }
  const std::string session = ctx.session_id;
  d.on_pool(name, std::move(done), [&d, tool, args, session] { return d.run_tool(tool, args, session); });
}

}  // namespace kaisha::tools
