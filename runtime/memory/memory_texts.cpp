#include "runtime/memory/memory_texts.hpp"

#include "runtime/core/data_paths.hpp"
#include "runtime/core/json.hpp"

namespace kaisha::memory {

std::string fill(std::string text, const std::string& name, const std::string& value) {
  const std::string pat = "{" + name + "}";
  for (size_t pos = text.find(pat); pos != std::string::npos; pos = text.find(pat, pos + value.size()))
    text.replace(pos, pat.size(), value);
  return text;
}

Result<MemoryTexts> MemoryTexts::load(const std::string& path_in) {
  const std::string path = path_in.empty() ? data_file("data/memory/memory_texts.json") : path_in;
  auto text = read_text_file(path);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) return Error{"data", path + ": not a JSON object"};
  MemoryTexts t;
  for (auto [key, out] : {std::pair{"add_requires", &t.add_requires}, std::pair{"exists", &t.exists},
                          std::pair{"delete_requires", &t.delete_requires}, std::pair{"not_found", &t.not_found},
                          std::pair{"unknown_action", &t.unknown_action}, std::pair{"added", &t.added},
                          std::pair{"retrieved_all", &t.retrieved_all}, std::pair{"deleted", &t.deleted},
                          std::pair{"injection", &t.injection}, std::pair{"transcript", &t.transcript}}) {
    if (!j.contains(key) || !j[key].is_string()) return Error{"data", path + ": missing text '" + key + "'"};
    *out = j[key].get<std::string>();
  }
  if (j.contains("stopwords")) {
    if (!j["stopwords"].is_array()) return Error{"data", path + ": 'stopwords' must be a list of words"};
    for (const auto& w : j["stopwords"])
      if (w.is_string()) t.stopwords.insert(w.get<std::string>());
  }
  return t;
}

}  // namespace kaisha::memory
