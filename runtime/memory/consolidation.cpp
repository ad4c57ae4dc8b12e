#include "runtime/memory/consolidation.hpp"

#include <set>

#include "runtime/core/data_paths.hpp"
#include "runtime/core/json.hpp"
#include "runtime/memory/memory_scoring.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::memory {
namespace {

bool has_any(const std::set<std::string>& words, const std::vector<std::string>& wanted) {
  for (const auto& w : wanted)
    if (words.count(w)) return true;
  return false;
}

Result<std::vector<std::string>> string_list(const json& j, const std::string& where) {
  if (!j.is_array()) return Error{"data", where + ": expected a list of words"};
  std::vector<std::string> out;
  for (const auto& x : j) {
    if (!x.is_string()) return Error{"data", where + ": expected a list of words"};
    out.push_back(x.get<std::string>());
  }
  return out;
}

}  // namespace

Result<ConsolidationRules> ConsolidationRules::load(const std::string& path_in) {
  const std::string path = path_in.empty() ? data_file("data/memory/effgen_memory.json") : path_in;
  auto text = read_text_file(path);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) return Error{"data", path + ": not a JSON object"};
  ConsolidationRules r;
  const json rules = j.value("type_rules", json::object());
  for (auto [key, out] : {std::pair{"fact", &r.fact_words}, std::pair{"task", &r.task_words},
                          std::pair{"reflection", &r.reflection_words}}) {
    auto list = string_list(rules.value(key, json::array()), path + ": type_rules." + key);
    if (!list.ok()) return list.error();
    *out = std::move(list).value();
  }
  auto kw = string_list(j.value("importance_keywords", json::array()), path + ": importance_keywords");
  if (!kw.ok()) return kw.error();
  r.importance_keywords = std::move(kw).value();
  r.summarize_prompt = j.value("summarize_prompt", r.summarize_prompt);
  return r;
}

MemoryType infer_type(const StmMessage& m, const ConsolidationRules& rules) {
  const auto list = lower_words(m.content);
  const std::set<std::string> words(list.begin(), list.end());
  if (has_any(words, rules.fact_words)) return MemoryType::fact;
  if (m.role == StmRole::user && has_any(words, rules.task_words)) return MemoryType::task;
  if (has_any(words, rules.reflection_words)) return MemoryType::reflection;
  return MemoryType::observation;
}

std::optional<MemoryEntry> consolidate_message(const StmMessage& m, const ConsolidationRules& rules,
                                               const std::string& session_id) {
  if (m.role == StmRole::tool || m.est_tokens <= rules.min_tokens) return std::nullopt;
  const MemoryType type = infer_type(m, rules);
  const double importance = importance_score(Importance::medium, type, m.content, rules.importance_keywords);
  if (!(importance > rules.min_importance)) return std::nullopt;
  MemoryEntry e;
  e.id = store::JournalStore::make_id("m");
  e.content = m.content;
  e.type = type;
  e.importance = Importance::medium;
  e.timestamp = m.timestamp;
  e.session_id = session_id;
  e.metadata = json{{"source", "consolidation"}, {"role", role_name(m.role)}, {"importance_score", importance}};
  return e;
}

}  // namespace kaisha::memory
