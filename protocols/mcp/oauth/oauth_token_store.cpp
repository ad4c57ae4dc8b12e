#include "protocols/mcp/oauth/oauth_token_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/core/bounded_json.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::mcp {
namespace {

constexpr size_t kMaxFileBytes = 4u << 20;  // a token file is small; refuse to slurp anything huge

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? (slash == 0 ? "/" : ".") : path.substr(0, slash);
}

// mkdir -p with mode 0700 for the directories it creates.
Status make_dirs(const std::string& dir) {
  if (dir.empty() || dir == "/" || dir == ".") return Status::Ok();
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return Status::Ok();
  if (Status s = make_dirs(parent_of(dir)); !s.ok()) return s;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Error{"oauth", "cannot create the token directory " + dir + ": " + std::strerror(errno)};
  return Status::Ok();
}

json empty_doc() { return json{{"version", 1}, {"resources", json::object()}, {"clients", json::object()}}; }

json parse_doc(const std::string& text) {
  json j = parse_json_or_discarded(utf8::repair(text));
  if (!j.is_object()) return empty_doc();
  if (!j["resources"].is_object()) j["resources"] = json::object();
  if (!j["clients"].is_object()) j["clients"] = json::object();
  return j;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string();  // no file yet: nothing stored
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.size() > kMaxFileBytes) return Error{"oauth", "the token file " + path + " is larger than 4 MiB"};
  return text;
}

Status write_file(const std::string& path, const std::string& text) {
  if (Status s = make_dirs(parent_of(path)); !s.ok()) return s;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"oauth", "cannot write the token file " + tmp + ": " + std::strerror(errno)};
  ::fchmod(fd, 0600);  // whatever the umask
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return Error{"oauth", "cannot write the token file " + tmp + ": " + why};
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Error{"oauth", "cannot replace the token file " + path + ": " + why};
  }
  return Status::Ok();
}

OAuthTokens tokens_from(const json& j) {
  OAuthTokens t;
  t.issuer = j.value("issuer", std::string());
  t.access_token = j.value("access_token", std::string());
  t.refresh_token = j.value("refresh_token", std::string());
  t.scope = j.value("scope", std::string());
  t.expires_at = j.value("expires_at", int64_t{0});
  t.token_type = j.value("token_type", std::string("Bearer"));
  t.dpop_key = j.value("dpop_key", std::string());
  t.lifetime = j.value("lifetime", int64_t{0});
  return t;
}

}  // namespace

OAuthTokenStore::OAuthTokenStore(std::string path) : path_(std::move(path)) {}

std::string OAuthTokenStore::default_path() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state && *state == '/') return std::string(state) + "/kaisha/mcp-oauth-tokens.json";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/state/kaisha/mcp-oauth-tokens.json";
}

namespace {

// Read-modify-write of the document under the store's lock.
template <class F>
Status update(const std::string& path, std::string& memory, F&& change) {
  json doc;
  if (path.empty()) {
    doc = parse_doc(memory);
  } else {
    auto text = read_file(path);
    if (!text.ok()) return text.error();
    doc = parse_doc(*text);
  }
  change(doc);
  const std::string text = doc.dump(2, ' ', false, json::error_handler_t::replace);
  if (path.empty()) {
    memory = text;
    return Status::Ok();
  }
  return write_file(path, text);
}

}  // namespace

std::optional<OAuthTokens> OAuthTokenStore::tokens(const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  auto text = path_.empty() ? Result<std::string>(memory_) : read_file(path_);
  if (!text.ok()) return std::nullopt;
  const json doc = parse_doc(*text);
  auto it = doc["resources"].find(resource);
  if (it == doc["resources"].end() || !it->is_object()) return std::nullopt;
  OAuthTokens t = tokens_from(*it);
  if (t.access_token.empty()) return std::nullopt;
  return t;
}

Status OAuthTokenStore::put_tokens(const std::string& resource, const OAuthTokens& t) {
  std::lock_guard<std::mutex> lock(mu_);
  return update(path_, memory_, [&](json& doc) {
    doc["resources"][resource] = {
        {"issuer", t.issuer},     {"access_token", t.access_token}, {"refresh_token", t.refresh_token},
        {"scope", t.scope},       {"expires_at", t.expires_at},     {"token_type", t.token_type},
        {"dpop_key", t.dpop_key}, {"lifetime", t.lifetime}};
  });
}

Status OAuthTokenStore::forget_tokens(const std::string& resource) {
  std::lock_guard<std::mutex> lock(mu_);
  return update(path_, memory_, [&](json& doc) { doc["resources"].erase(resource); });
}

std::optional<OAuthClientRegistration> OAuthTokenStore::registration(const std::string& issuer) {
  std::lock_guard<std::mutex> lock(mu_);
  auto text = path_.empty() ? Result<std::string>(memory_) : read_file(path_);
  if (!text.ok()) return std::nullopt;
  const json doc = parse_doc(*text);
  auto it = doc["clients"].find(issuer);
  if (it == doc["clients"].end() || !it->is_object()) return std::nullopt;
  OAuthClientRegistration r;
  r.client_id = it->value("client_id", std::string());
  r.client_secret = it->value("client_secret", std::string());
  r.auth_method = it->value("auth_method", std::string());
  if (r.client_id.empty()) return std::nullopt;
  return r;
}

Status OAuthTokenStore::put_registration(const std::string& issuer, const OAuthClientRegistration& r) {
  std::lock_guard<std::mutex> lock(mu_);
  return update(path_, memory_, [&](json& doc) {
    doc["clients"][issuer] = {
        {"client_id", r.client_id}, {"client_secret", r.client_secret}, {"auth_method", r.auth_method}};
  });
}

}  // namespace kaisha::mcp
