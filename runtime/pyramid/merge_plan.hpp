// Which candidate branches of one call are merged into the branch they were
// made from (InfiAgent Eq. 12, infiagent.md §10 item 51):
//   B_main <- merge(B_main, {Δm_i | J(Δm_i) = 1}).
// Every branch whose result the judge accepted is a merge candidate, not
// only the first. Two accepted change sets conflict when both change the
// same file to different contents (or one removes what the other writes).
// The rule: accepted branches are taken by quality score Q, highest first
// (ties in candidate order); each is merged unless it conflicts with one
// taken before it, and then it is rejected whole, naming the branch it lost
// to and the file — a change set is merged entirely or not at all. A pure
// function of its input, so a resumed task plans the same merges.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"

namespace kaisha::pyramid {

struct MergeCandidate {
  std::string name;  // how the reasons name it (its model)
  bool accepted = false;
  double q = 0;
  // Every file it changed: path -> content hash; "" for a file it removed.
  std::map<std::string, std::string> changed;
};

struct MergePlan {
  // Indexes into the candidates, in the order they are merged.
  std::vector<size_t> merge;
  // Accepted candidates left out, with why ("conflicts with mock:b (higher Q) over draft.md").
  std::map<size_t, std::string> rejected;

  json to_json() const;
};

// `excluded`: candidates that must not be merged (an earlier merge of theirs
// failed); they are neither merged nor conflict with anyone.
MergePlan plan_merges(const std::vector<MergeCandidate>& candidates, const std::vector<size_t>& excluded = {});

// A change set as branch_close reports it ({"added", "modified", "removed",
// "hashes": {path: hash}}) as the `changed` map above; a file without its
// hash differs from every other candidate's (`who` names this one).
std::map<std::string, std::string> changed_files(const json& changes, const std::string& who);

}  // namespace kaisha::pyramid
