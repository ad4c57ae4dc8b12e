#include "runtime/pyramid/merge_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace kaisha::pyramid {

namespace {

std::string q_text(double q) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", q);
  return buf;
}

}  // namespace

json MergePlan::to_json() const {
  json r = json::object();
  for (const auto& [i, why] : rejected) r[std::to_string(i)] = why;
  return json{{"merge", merge}, {"rejected", std::move(r)}};
}

MergePlan plan_merges(const std::vector<MergeCandidate>& candidates, const std::vector<size_t>& excluded) {
  std::vector<size_t> order;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].accepted && std::find(excluded.begin(), excluded.end(), i) == excluded.end()) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return candidates[a].q > candidates[b].q; });
  MergePlan plan;
  // What the merged change sets hold so far: path -> (hash, who wrote it).
  std::map<std::string, std::pair<std::string, size_t>> taken;
  for (size_t i : order) {
    const MergeCandidate& c = candidates[i];
    std::optional<std::pair<std::string, size_t>> clash;  // (path, winner)
    for (const auto& [path, hash] : c.changed) {
      auto t = taken.find(path);
      if (t != taken.end() && t->second.first != hash) {
        clash.emplace(path, t->second.second);
        break;
      }
    }
    if (clash) {
      const MergeCandidate& w = candidates[clash->second];
      plan.rejected[i] = "its changes conflict with " + w.name + "'s (Q " + q_text(w.q) + " against " + q_text(c.q) +
                         ") over " + clash->first + "; kept as a rejected commit";
      continue;
    }
    for (const auto& [path, hash] : c.changed) taken.emplace(path, std::make_pair(hash, i));
    plan.merge.push_back(i);
  }
  return plan;
}

std::map<std::string, std::string> changed_files(const json& changes, const std::string& who) {
  std::map<std::string, std::string> out;
  if (!changes.is_object()) return out;
  const json hashes = changes.value("hashes", json::object());
  for (const char* key : {"added", "modified"}) {
    auto it = changes.find(key);
    if (it == changes.end() || !it->is_array()) continue;
    for (const auto& p : *it)
      if (p.is_string()) {
        const std::string path = p.get<std::string>();
        auto h = hashes.find(path);
        // Without its hash a file is taken to differ from everybody else's.
        out[path] = h != hashes.end() && h->is_string() ? h->get<std::string>() : "?" + who;
      }
  }
  if (auto it = changes.find("removed"); it != changes.end() && it->is_array())
    for (const auto& p : *it)
      if (p.is_string()) out[p.get<std::string>()] = "";
  return out;
}

}  // namespace kaisha::pyramid
