#include "runtime/store/backup_manifest.hpp"

#include <set>

namespace kaisha::store {
namespace {

Error bad(const std::string& why) { return Error{"backup", "not a kaisha backup manifest: " + why}; }

}  // namespace

json BackupManifest::to_json() const {
  json ps = json::array();
  for (const auto& p : parts) {
    json j = {{"name", p.name}, {"path", p.path}, {"kind", p.kind}, {"from", p.from}, {"bytes", p.bytes}};
    if (p.kind == "directory") j["files"] = p.files;
    ps.push_back(std::move(j));
  }
  return json{{"kaisha_backup", format},
              {"kaisha_version", kaisha_version},
              {"journal_schema_version", journal_schema_version},
              {"created_at", created_at},
              {"created_at_ms", created_at_ms},
              {"paths", paths},
              {"parts", std::move(ps)}};
}

Result<BackupManifest> BackupManifest::from_json(const json& j) {
  if (!j.is_object()) return bad("it is not a JSON object");
  if (!j.contains("kaisha_backup") || !j["kaisha_backup"].is_number_integer())
    return bad("no \"kaisha_backup\" format number");
  BackupManifest m;
  m.format = j["kaisha_backup"].get<int>();
  if (m.format > kFormat)
    return Error{"backup", "the backup's manifest has format " + std::to_string(m.format) +
                               ", newer than this kaisha's (" + std::to_string(kFormat) +
                               "): restore it with the kaisha that made it (" +
                               j.value("kaisha_version", std::string("?")) + ") or a newer one"};
  auto text = [&](const json& o, const char* key, std::string& out) -> Status {
    if (!o.contains(key) || !o[key].is_string()) return bad(std::string("\"") + key + "\" is missing or not a string");
    out = o[key].get<std::string>();
    return Status::Ok();
  };
  auto number = [&](const json& o, const char* key, int64_t& out) -> Status {
    if (!o.contains(key) || !o[key].is_number_integer() || o[key].get<int64_t>() < 0)
      return bad(std::string("\"") + key + "\" is missing or not a count");
    out = o[key].get<int64_t>();
    return Status::Ok();
  };
  if (Status s = text(j, "kaisha_version", m.kaisha_version); !s.ok()) return s.error();
  int64_t schema = 0;
  if (Status s = number(j, "journal_schema_version", schema); !s.ok()) return s.error();
  m.journal_schema_version = static_cast<int>(schema);
  if (Status s = text(j, "created_at", m.created_at); !s.ok()) return s.error();
  if (Status s = number(j, "created_at_ms", m.created_at_ms); !s.ok()) return s.error();
  if (j.contains("paths") && j["paths"].is_object()) m.paths = j["paths"];
  if (!j.contains("parts") || !j["parts"].is_array()) return bad("\"parts\" is missing or not a list");
  std::set<std::string> names;
  for (const auto& p : j["parts"]) {
    if (!p.is_object()) return bad("a part is not an object");
    BackupPart part;
    if (Status s = text(p, "name", part.name); !s.ok()) return s.error();
    if (Status s = text(p, "path", part.path); !s.ok()) return s.error();
    if (Status s = text(p, "kind", part.kind); !s.ok()) return s.error();
    if (Status s = text(p, "from", part.from); !s.ok()) return s.error();
    if (Status s = number(p, "bytes", part.bytes); !s.ok()) return s.error();
    if (part.kind != "sqlite" && part.kind != "directory")
      return bad("part \"" + part.name + "\" is of kind \"" + part.kind + "\" (expected sqlite or directory)");
    if (part.kind == "directory")
      if (Status s = number(p, "files", part.files); !s.ok()) return s.error();
    // A plain name inside the backup: a restore reads nothing outside it.
    if (part.path.empty() || part.path.find('/') != std::string::npos || part.path == "." || part.path == "..")
      return bad("part \"" + part.name + "\" has path \"" + part.path + "\" (expected a name inside the backup)");
    if (!names.insert(part.name).second) return bad("part \"" + part.name + "\" is listed twice");
    m.parts.push_back(std::move(part));
  }
  const BackupPart* journal = m.part("journal");
  if (!journal || journal->kind != "sqlite") return bad("it lists no journal");
  return m;
}

const BackupPart* BackupManifest::part(const std::string& name) const {
  for (const auto& p : parts)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace kaisha::store
