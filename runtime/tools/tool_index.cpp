#include "runtime/tools/tool_index.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/fnv1a.hpp"

namespace kaisha::tools {

std::string content_hash(const std::string& text) {
  // Not FNV's offset basis (a digit short of it): kept, because the hashes
  // in tool indexes on disk were made with it.
  const uint64_t h = fnv1a_64(1469598103934665603ull, text);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

ToolIndex ToolIndex::load(const std::string& dir) {
  ToolIndex index;
  auto text = read_text_file(dir + "/" + kToolIndexFile);
  if (!text) return index;
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return index;
  for (const auto& [file, e] : j.items()) {
    if (!e.is_object() || !e.contains("hash") || !e.contains("spec") || !e["spec"].is_object()) continue;
    ValidatedTool t;
    t.entry_class = e.value("entry_class", "");
    const json& s = e["spec"];
    t.spec = llm::ToolSpec{s.value("name", ""), s.value("description", ""), s.value("parameters", json::object())};
    t.costs = e.value("costs", json::object());
    if (t.entry_class.empty() || t.spec.name.empty()) continue;
    index.entries_[file] = Entry{e.value("hash", ""), std::move(t)};
  }
  return index;
}

Status ToolIndex::save(const std::string& dir) const {
  json j = json::object();
  for (const auto& [file, e] : entries_)
    j[file] = {{"hash", e.hash},
               {"entry_class", e.tool.entry_class},
               {"spec",
                {{"name", e.tool.spec.name},
                 {"description", e.tool.spec.description},
                 {"parameters", e.tool.spec.parameters}}},
               {"costs", e.tool.costs}};
  const std::string path = dir + "/" + kToolIndexFile;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out.flush()) return Error{"io", "cannot write " + tmp};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error{"io", "cannot write " + path};
  }
  return Status::Ok();
}

std::optional<ValidatedTool> ToolIndex::find(const std::string& file, const std::string& hash) const {
  auto it = entries_.find(file);
  if (it == entries_.end() || it->second.hash != hash) return std::nullopt;
  return it->second.tool;
}

void ToolIndex::put(const std::string& file, const std::string& hash, const ValidatedTool& tool) {
  entries_[file] = Entry{hash, tool};
}

}  // namespace kaisha::tools
