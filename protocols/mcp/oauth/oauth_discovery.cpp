#include "protocols/mcp/oauth/oauth_discovery.hpp"

#include <algorithm>
#include <sstream>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::mcp {
namespace {

std::string without_trailing_slash(std::string p) {
  while (!p.empty() && p.back() == '/') p.pop_back();
  return p;
}

void add_words(std::vector<std::string>& out, const std::string& text) {
  std::istringstream in(text);
  for (std::string w; in >> w;)
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
}

}  // namespace

UrlParts split_url(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t path_start = url.find_first_of("/?#", host_start);
  UrlParts out;
  out.origin = url.substr(0, path_start);
  if (path_start != std::string::npos && url[path_start] == '/') {
    const size_t end = url.find_first_of("?#", path_start);
    out.path = url.substr(path_start, end == std::string::npos ? std::string::npos : end - path_start);
  }
  return out;
}

std::vector<std::string> protected_resource_metadata_urls(const std::string& server_url,
                                                          const std::string& from_challenge) {
  std::vector<std::string> out;
  if (!from_challenge.empty()) out.push_back(from_challenge);
  const UrlParts u = split_url(server_url);
  const std::string path = without_trailing_slash(u.path);
  const std::string root = u.origin + "/.well-known/oauth-protected-resource";
  if (!path.empty()) out.push_back(root + path);
  out.push_back(root);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> authorization_server_metadata_urls(const std::string& issuer) {
  const UrlParts u = split_url(issuer);
  const std::string path = without_trailing_slash(u.path);
  if (path.empty())
    return {u.origin + "/.well-known/oauth-authorization-server", u.origin + "/.well-known/openid-configuration"};
  return {u.origin + "/.well-known/oauth-authorization-server" + path,
          u.origin + "/.well-known/openid-configuration" + path, u.origin + path + "/.well-known/openid-configuration"};
}

bool resource_matches(const std::string& resource, const std::string& server_url) {
  const UrlParts r = split_url(resource);
  const UrlParts s = split_url(server_url);
  if (r.origin.empty() || ascii_lower(r.origin) != ascii_lower(s.origin)) return false;
  const std::string rp = without_trailing_slash(r.path);
  const std::string sp = without_trailing_slash(s.path);
  if (rp.empty() || rp == sp) return true;
  return sp.size() > rp.size() && sp.compare(0, rp.size(), rp) == 0 && sp[rp.size()] == '/';
}

std::string select_scope(const std::string& challenge_scope, const std::vector<std::string>& resource_scopes,
                         const std::string& previous, bool want_offline_access,
                         const std::vector<std::string>& server_scopes) {
  std::vector<std::string> words;
  add_words(words, previous);
  if (!challenge_scope.empty()) {
    add_words(words, challenge_scope);
  } else {
    for (const auto& s : resource_scopes) add_words(words, s);
  }
  if (!words.empty() && want_offline_access &&
      std::find(server_scopes.begin(), server_scopes.end(), "offline_access") != server_scopes.end())
    add_words(words, "offline_access");
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace kaisha::mcp
