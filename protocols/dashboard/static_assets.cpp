#include "protocols/dashboard/static_assets.hpp"

#include <cstdio>
#include <filesystem>

#include "runtime/core/data_paths.hpp"

namespace kaisha::dashboard {

namespace fs = std::filesystem;

std::string content_type_for(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".json")) return "application/json";
  if (ends(".png")) return "image/png";
  if (ends(".ico")) return "image/x-icon";
  return "application/octet-stream";
}

std::string etag_for(std::string_view body) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : body) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char text[48];
  std::snprintf(text, sizeof(text), "\"%016llx-%zx\"", static_cast<unsigned long long>(h), body.size());
  return text;
}

Result<StaticAssets> StaticAssets::load(const std::string& dir) {
  StaticAssets out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string name = it->path().filename().string();
    auto text = read_text_file(it->path().string());
    if (!text.ok()) return text.error();
    StaticAsset a;
    a.content_type = content_type_for(name);
    a.etag = etag_for(*text);
    a.body = std::move(text).value();
    out.files_.emplace(name, std::move(a));
  }
  if (ec) return Error{"io", "cannot read the dashboard's files in " + dir + ": " + ec.message()};
  if (!out.find("index.html"))
    return Error{"io", "the dashboard's directory " + dir +
                           " has no index.html (is KAISHA_DATA_DIR or the installation complete?)"};
  return out;
}

const StaticAsset* StaticAssets::find(const std::string& name) const {
  auto it = files_.find(name);
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace kaisha::dashboard
