#include "runtime/tools/workspace_history.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "runtime/core/confined_fs.hpp"
#include "runtime/tools/sha256.hpp"
#include "runtime/tools/text_diff.hpp"

namespace kaisha::tools {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTasksDir = ".tasks";      // as PyramidTools keeps them
constexpr const char* kHistoryDir = ".history";  // beside .branches: out of every task's reach

bool hex_name(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

Result<std::string> read_host_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return Error{"history", "cannot read " + path + ": " + std::strerror(errno)};
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"history", "cannot read " + path + ": " + std::strerror(errno)};
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Written whole or not at all: a temporary file, synced, renamed into place.
Status write_host_file(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd.valid()) return Error{"history", "cannot write " + tmp + ": " + std::strerror(errno)};
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"history", "cannot write " + tmp + ": " + std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return Error{"history", "cannot sync " + tmp + ": " + std::strerror(errno)};
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return Error{"history", "cannot rename " + tmp + ": " + std::strerror(errno)};
  return Status::Ok();
}

Result<std::string> read_view_file(const FileView& view, const std::string& path) {
  auto opened = view.open_read(path);
  if (!opened) return opened.error();
  if (!opened->exists) return Error{"path", "'" + path + "' does not exist"};
  struct stat st {};
  if (fstat(opened->fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return Error{"path", "'" + path + "' is not a regular file"};
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(opened->fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"path", "cannot read '" + path + "': " + std::strerror(errno)};
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string id_name(int64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06lld.json", static_cast<long long>(id));
  return buf;
}

bool hidden_path(const std::string& shown) {
  return (!shown.empty() && shown[0] == '.') || shown.find("/.") != std::string::npos;
}

}  // namespace

json Commit::to_json() const {
  json j{{"id", id},       {"kind", kind},       {"parent", parent}, {"key", key},
         {"agent", agent}, {"model", model},     {"branch", branch}, {"q", q},
         {"why", why},     {"changes", changes}, {"at_ms", at_ms},   {"tree", tree}};
  if (!verdict.is_null()) j["verdict"] = verdict;
  if (!output.is_null()) j["output"] = output;
  return j;
}

Result<Commit> Commit::from_json(const json& j) {
  if (!j.is_object() || !j.contains("id") || !j.contains("kind") || !j.contains("tree"))
    return Error{"history", "a commit record lacks its id, kind or tree"};
  try {
    Commit c;
    c.id = j.at("id").get<int64_t>();
    c.kind = j.at("kind").get<std::string>();
    c.parent = j.value("parent", int64_t{0});
    c.key = j.value("key", "");
    c.agent = j.value("agent", "");
    c.model = j.value("model", "");
    c.branch = j.value("branch", "");
    c.q = j.value("q", 0.0);
    c.why = j.value("why", "");
    c.changes = j.value("changes", json::object());
    c.at_ms = j.value("at_ms", int64_t{0});
    c.tree = j.at("tree").get<Manifest>();
    if (j.contains("verdict")) c.verdict = j["verdict"];
    if (j.contains("output")) c.output = j["output"];
    return c;
  } catch (const std::exception& e) {
    return Error{"history", std::string("a commit record is malformed: ") + e.what()};
  }
}

Result<std::string> task_work_dir(const std::string& workspace_root, const std::string& session,
                                  const std::string& task) {
  auto sessions = session_workspace(workspace_root + "/" + kTasksDir, session);
  if (!sessions) return sessions.error();
  return *sessions + "/" + task;
}

Result<std::string> task_history_dir(const std::string& workspace_root, const std::string& session,
                                     const std::string& task) {
  if (task.empty() || task[0] == '.' || task.find('/') != std::string::npos)
    return Error{"path", "task id '" + task + "' cannot name a directory"};
  auto sessions = session_workspace(workspace_root + "/" + kTasksDir, session);
  if (!sessions) return sessions.error();
  return *sessions + "/" + kHistoryDir + "/" + task;
}

Result<WorkspaceHistory> WorkspaceHistory::open(const std::string& dir) {
  std::error_code ec;
  for (const char* sub : {"objects", "commits"}) {
    fs::create_directories(fs::path(dir) / sub, ec);
    if (ec) return Error{"history", "cannot make " + (fs::path(dir) / sub).string() + ": " + ec.message()};
  }
  return WorkspaceHistory(dir);
}

Result<std::optional<WorkspaceHistory>> WorkspaceHistory::open_existing(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::path(dir) / "commits", ec)) return std::optional<WorkspaceHistory>{};
  return std::optional<WorkspaceHistory>(WorkspaceHistory(dir));
}

Result<std::vector<Commit>> WorkspaceHistory::commits() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(dir_) / "commits", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == 11 && name.compare(6, 5, ".json") == 0) names.push_back(name);
  }
  if (ec) return Error{"history", "cannot list " + dir_ + "/commits: " + ec.message()};
  std::sort(names.begin(), names.end());
  std::vector<Commit> out;
  for (const auto& name : names) {
    auto text = read_host_file(dir_ + "/commits/" + name);
    if (!text) return text.error();
    json j = json::parse(*text, nullptr, false);
    auto c = Commit::from_json(j);
    if (!c) return Error{"history", dir_ + "/commits/" + name + ": " + c.error().message};
    out.push_back(std::move(c).value());
  }
  return out;
}

Result<Commit> WorkspaceHistory::get(int64_t id) const {
  auto all = commits();
  if (!all) return all.error();
  for (auto& c : *all)
    if (c.id == id) return std::move(c);
  if (all->empty()) return Error{"history", "no commit " + std::to_string(id) + ": the task has no commits"};
  return Error{"history",
               "no commit " + std::to_string(id) + ": the task's commits are 1 to " + std::to_string(all->back().id)};
}

Result<std::optional<Commit>> WorkspaceHistory::by_key(const std::string& key) const {
  auto all = commits();
  if (!all) return all.error();
  for (auto& c : *all)
    if (!key.empty() && c.key == key) return std::optional<Commit>(std::move(c));
  return std::optional<Commit>{};
}

Result<std::optional<Commit>> WorkspaceHistory::head() const {
  auto all = commits();
  if (!all) return all.error();
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (it->in_main()) return std::optional<Commit>(std::move(*it));
  return std::optional<Commit>{};
}

Status WorkspaceHistory::put_blob(const std::string& hash, const std::string& bytes) const {
  const std::string path = dir_ + "/objects/" + hash;
  std::error_code ec;
  if (fs::exists(path, ec)) return Status::Ok();  // content-addressed: already there is the same bytes
  return write_host_file(path, bytes);
}

Result<std::string> WorkspaceHistory::blob(const std::string& hash) const {
  if (!hex_name(hash)) return Error{"history", "'" + hash + "' is not a blob's name"};
  auto bytes = read_host_file(dir_ + "/objects/" + hash);
  if (!bytes) return bytes.error();
  if (sha256_hex(*bytes) != hash) return Error{"history", "blob " + hash + " is damaged: its content changed"};
  return bytes;
}

Result<Manifest> WorkspaceHistory::snapshot(const FileView& view) const {
  Manifest m;
  Status s = each_file(view, BranchLimits{}, [&](const std::string& shown, const std::string& bytes) -> Status {
    const std::string hash = sha256_hex(bytes);
    if (Status p = put_blob(hash, bytes); !p) return p;
    m[shown] = hash;
    return Status::Ok();
  });
  if (!s) return s.error();
  return m;
}

Result<Commit> WorkspaceHistory::append(Commit c) const {
  auto all = commits();
  if (!all) return all.error();
  c.id = all->empty() ? 1 : all->back().id + 1;
  c.parent = 0;
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (it->in_main()) {
      c.parent = it->id;
      break;
    }
  if (Status s = write_host_file(dir_ + "/commits/" + id_name(c.id), c.to_json().dump()); !s) return s.error();
  return c;
}

Status WorkspaceHistory::catch_up(const FileView& main, int64_t at_ms) {
  auto tree = snapshot(main);
  if (!tree) return tree.error();
  auto last = head();
  if (!last) return last.error();
  if (*last && (*last)->tree == *tree) return Status::Ok();
  Commit c;
  c.kind = *last ? "work" : "base";
  c.at_ms = at_ms;
  c.changes = changes_between(*last ? (*last)->tree : Manifest{}, *tree).to_json();
  c.tree = std::move(tree).value();
  auto made = append(std::move(c));
  if (!made) return made.error();
  return Status::Ok();
}

Status WorkspaceHistory::begin_merge(const FileView& main, const std::string& key, int64_t at_ms) {
  std::error_code ec;
  const fs::path mark = fs::path(dir_) / "merging" / key;
  if (key.empty() || key.find('/') != std::string::npos || key[0] == '.')
    return Error{"history", "'" + key + "' cannot name a merge"};
  if (fs::exists(mark, ec)) return Status::Ok();
  if (Status s = catch_up(main, at_ms); !s) return s;
  fs::create_directories(mark.parent_path(), ec);
  if (ec) return Error{"history", "cannot make " + mark.parent_path().string() + ": " + ec.message()};
  return write_host_file(mark.string(), key);
}

Result<Commit> WorkspaceHistory::record_merge(const FileView& main, Commit meta) {
  auto tree = snapshot(main);
  if (!tree) return tree.error();
  auto last = head();
  if (!last) return last.error();
  meta.kind = "merge";
  meta.changes = changes_between(*last ? (*last)->tree : Manifest{}, *tree).to_json();
  meta.tree = std::move(tree).value();
  auto made = append(std::move(meta));
  if (made) {
    std::error_code ec;
    fs::remove(fs::path(dir_) / "merging" / made->key, ec);  // a mark left behind only skips a catch_up
  }
  return made;
}

Result<Commit> WorkspaceHistory::record_rejected(const FileView& branch, const ChangeSet& changes, Commit meta) {
  meta.kind = "rejected";
  meta.changes = changes.to_json();
  meta.tree.clear();
  for (const auto* list : {&changes.added, &changes.modified})
    for (const auto& path : *list) {
      auto bytes = read_view_file(branch, path);
      if (!bytes) return bytes.error();
      const std::string hash = sha256_hex(*bytes);
      if (Status p = put_blob(hash, *bytes); !p) return p.error();
      meta.tree[path] = hash;
    }
  return append(std::move(meta));
}

Result<Commit> WorkspaceHistory::revert(const FileView& main, int64_t id, int64_t at_ms) {
  auto target = get(id);
  if (!target) return target.error();
  if (!target->in_main())
    return Error{"history", "commit " + std::to_string(id) +
                                " was rejected: it never reached the task's directory, so there is nothing to go "
                                "back to; revert to a base, work, merge or revert commit"};
  // Every blob is read (and checked) before the directory is touched.
  std::map<std::string, std::string> contents;
  for (const auto& [path, hash] : target->tree) {
    auto bytes = blob(hash);
    if (!bytes) return bytes.error();
    contents[path] = std::move(bytes).value();
  }
  if (Status s = catch_up(main, at_ms); !s) return s.error();
  for (const auto& [path, bytes] : contents)
    if (Status w = write_file_bytes(main, path, bytes); !w) return w.error();
  auto root = main.open_read(".");
  if (!root) return root.error();
  std::vector<std::string> failed;
  Status walked = walk_beneath(
      root->fd.get(), [&](int dir, const std::string& name, const struct stat& st, const std::string& shown) -> Status {
        if (!S_ISREG(st.st_mode) || hidden_path(shown) || target->tree.count(shown)) return Status::Ok();
        if (::unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT) failed.push_back(shown);
        return Status::Ok();
      });
  if (!walked) return walked.error();
  if (!failed.empty()) return Error{"history", "could not remove '" + failed.front() + "' while reverting"};
  auto last = head();
  if (!last) return last.error();
  Commit c;
  c.kind = "revert";
  c.why = "to commit " + std::to_string(id);
  c.at_ms = at_ms;
  c.changes = changes_between(*last ? (*last)->tree : Manifest{}, target->tree).to_json();
  c.tree = target->tree;
  return append(std::move(c));
}

Result<std::string> WorkspaceHistory::diff(int64_t id) const {
  auto c = get(id);
  if (!c) return c.error();
  Manifest before;
  if (c->parent != 0) {
    auto p = get(c->parent);
    if (!p) return p.error();
    before = p->tree;
  }
  Manifest after = c->tree;
  if (!c->in_main()) {  // what main would have held with it
    after = before;
    for (const auto& [path, hash] : c->tree) after[path] = hash;
  }
  std::set<std::string> paths;
  for (const auto& [p, h] : before) paths.insert(p);
  for (const auto& [p, h] : after) paths.insert(p);
  std::string out;
  for (const auto& path : paths) {
    auto b = before.find(path), a = after.find(path);
    if (b != before.end() && a != after.end() && b->second == a->second) continue;
    std::string old_bytes, new_bytes;
    if (b != before.end()) {
      auto x = blob(b->second);
      if (!x) return x.error();
      old_bytes = std::move(x).value();
    }
    if (a != after.end()) {
      auto x = blob(a->second);
      if (!x) return x.error();
      new_bytes = std::move(x).value();
    }
    out += "--- " + (b == before.end() ? std::string("/dev/null") : "a/" + path) + "\n";
    out += "+++ " + (a == after.end() ? std::string("/dev/null") : "b/" + path) + "\n";
    if (!looks_like_text(old_bytes) || !looks_like_text(new_bytes))
      out +=
          "binary file: " + std::to_string(old_bytes.size()) + " -> " + std::to_string(new_bytes.size()) + " bytes\n";
    else
      out += line_diff(old_bytes, new_bytes);
  }
  return out;
}

}  // namespace kaisha::tools
