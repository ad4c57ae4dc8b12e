// The dashboard's page, scripts and styles (web/dashboard in the source
// tree, share/kaisha/web/dashboard once installed), read once when the
// server starts and served as they are: each with its content type and an
// ETag (a hash of its bytes), so that a browser revalidates instead of
// downloading again (Cache-Control: no-cache; a request whose If-None-Match
// names the ETag gets 304 and no body).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "runtime/core/result.hpp"

namespace kaisha::dashboard {

struct StaticAsset {
  std::string body;
  std::string content_type;
  std::string etag;  // quoted, as the header carries it
};

// "text/html; charset=utf-8" for "index.html", and so on for .css, .js,
// .svg, .json, .png, .ico; "application/octet-stream" for anything else.
std::string content_type_for(std::string_view file_name);

// A strong ETag of `body`: a quoted hex FNV-1a hash with the length.
std::string etag_for(std::string_view body);

class StaticAssets {
 public:
  // Every regular file directly in `dir` (not below it). An error names
  // the directory when it cannot be read or holds no index.html.
  static Result<StaticAssets> load(const std::string& dir);

  // The file named `name` ("index.html", "app.js"), or nullptr.
  const StaticAsset* find(const std::string& name) const;
  size_t size() const { return files_.size(); }

 private:
  std::map<std::string, StaticAsset> files_;
};

}  // namespace kaisha::dashboard
