#include "runtime/effgen/decomposition/decomposition_parser.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "runtime/prompt/json_extract.hpp"
#include "runtime/dag/subtask_dag.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/params_check.hpp"

namespace kaisha::planning {
namespace {

// Collects every problem, each prefixed with where it is.
class Problems {
 public:
  void add(std::string where, std::string what) { list_.push_back(where.empty() ? what : where + ": " + what); }
  bool empty() const { return list_.empty(); }
  Error error() const {
    std::string out;
    for (size_t i = 0; i < list_.size(); ++i) out += (i ? "; " : "") + list_[i];
    return Error{"decomposition", out};
  }

 private:
  std::vector<std::string> list_;
};

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

const char* type_name(const json& v) { return json_kind(v, JsonIntegers::as_numbers); }

// An optional string field: absent or null leaves `out` unchanged.
void read_string(const json& obj, const char* key, std::string& out, const std::string& where, Problems& p) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  if (!it->is_string()) return p.add(where, std::string(key) + " must be a string, got " + type_name(*it));
  out = it->get<std::string>();
}

void read_required_string(const json& obj, const char* key, std::string& out, const std::string& where, Problems& p) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return p.add(where, std::string("missing \"") + key + "\"");
  if (!it->is_string()) return p.add(where, std::string(key) + " must be a string, got " + type_name(*it));
  out = it->get<std::string>();
  if (blank(out)) p.add(where, std::string(key) + " is empty");
}

void read_string_list(const json& obj, const char* key, std::vector<std::string>& out, const std::string& where,
                      Problems& p) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  if (!it->is_array()) return p.add(where, std::string(key) + " must be an array of ids, got " + type_name(*it));
  for (size_t k = 0; k < it->size(); ++k) {
    const json& v = (*it)[k];
    if (!v.is_string()) {
      p.add(where, std::string(key) + "[" + std::to_string(k) + "] must be a string, got " + type_name(v));
      continue;
    }
    out.push_back(v.get<std::string>());
  }
}

Subtask read_item(const json& item, size_t index, routing::Strategy strategy, Problems& p) {
  const std::string where = "subtask #" + std::to_string(index + 1);
  Subtask s;
  if (!item.is_object()) {
    p.add(where, std::string("must be a JSON object, got ") + type_name(item));
    return s;
  }
  read_required_string(item, "id", s.id, where, p);
  read_required_string(item, "description", s.description, where, p);
  read_string_list(item, "depends_on", s.depends_on, where, p);
  read_string(item, "expected_output", s.expected_output, where, p);

  if (auto it = item.find("estimated_complexity"); it != item.end() && !it->is_null()) {
    if (!it->is_number()) {
      p.add(where, std::string("estimated_complexity must be a number in [0, 10], got ") + type_name(*it));
    } else {
      double c = it->get<double>();
      if (c < 0.0 || c > 10.0)
        p.add(where, "estimated_complexity " + it->dump() + " is outside [0, 10]");
      else
        s.estimated_complexity = c;
    }
  }

  std::string spec;
  read_string(item, "required_specialization", spec, where, p);
  if (!spec.empty()) {
    std::string l = ascii_lower(spec);
    bool known =
        std::any_of(std::begin(kSpecializations), std::end(kSpecializations), [&](const char* k) { return l == k; });
    if (known)
      s.required_specialization = l;
    else
      p.add(where, "required_specialization '" + spec +
                       "' is not one of research, coding, analysis, synthesis, data, creative, general");
  }

  std::string priority;
  read_string(item, "priority", priority, where, p);
  if (!priority.empty()) {
    std::string l = ascii_lower(priority);
    if (l == "high")
      s.priority = Priority::high;
    else if (l == "medium")
      s.priority = Priority::medium;
    else if (l == "low")
      s.priority = Priority::low;
    else
      p.add(where, "priority '" + priority + "' is not one of high, medium, low");
  }

  if (strategy == routing::Strategy::hierarchical) read_string(item, "reports_to", s.reports_to, where, p);
  return s;
}

}  // namespace

Result<Decomposition> parse_decomposition(std::string_view answer, routing::Strategy strategy,
                                          const DecompositionLimits& limits) {
  Result<json> parsed = extract_json(answer, JsonTop::object);
  if (!parsed) return parsed.error();
  const json& root = *parsed;

  Problems p;
  Decomposition d;
  d.strategy = strategy;
  const bool hierarchical = strategy == routing::Strategy::hierarchical;
  const char* list_key = hierarchical ? "worker_subtasks" : "subtasks";

  if (hierarchical) {
    auto m = root.find("manager_task");
    if (m == root.end() || m->is_null()) {
      p.add("", "missing \"manager_task\" object");
    } else if (!m->is_object()) {
      p.add("manager_task", std::string("must be a JSON object, got ") + type_name(*m));
    } else {
      ManagerTask mt;
      read_required_string(*m, "description", mt.description, "manager_task", p);
      read_string_list(*m, "responsibilities", mt.responsibilities, "manager_task", p);
      d.manager_task = std::move(mt);
    }
  }

  auto list = root.find(list_key);
  if (list == root.end() || list->is_null()) {
    p.add("", std::string("missing \"") + list_key + "\" array");
    return p.error();
  }
  if (!list->is_array()) {
    p.add(list_key, std::string("must be an array, got ") + type_name(*list));
    return p.error();
  }
  if (list->size() < limits.min_subtasks || list->size() > limits.max_subtasks) {
    p.add("", "expected " + std::to_string(limits.min_subtasks) + "–" + std::to_string(limits.max_subtasks) + " " +
                  list_key + ", got " + std::to_string(list->size()));
  }
  for (size_t i = 0; i < list->size(); ++i) d.subtasks.push_back(read_item((*list)[i], i, strategy, p));

  read_string(root, "reasoning", d.reasoning, "", p);

  if (!hierarchical) {
    if (auto g = root.find("parallel_groups"); g != root.end() && !g->is_null()) {
      if (!g->is_array()) {
        p.add("parallel_groups", std::string("must be an array of arrays of ids, got ") + type_name(*g));
      } else {
        for (size_t k = 0; k < g->size(); ++k) {
          std::vector<std::string> group;
          if (!(*g)[k].is_array()) {
            p.add("parallel_groups[" + std::to_string(k) + "]",
                  std::string("must be an array of ids, got ") + type_name((*g)[k]));
            continue;
          }
          read_string_list(json{{"ids", (*g)[k]}}, "ids", group, "parallel_groups[" + std::to_string(k) + "]", p);
          d.parallel_groups.push_back(std::move(group));
        }
      }
    }
  }

  // Cross-references need the whole list; only check them on sound items,
  // or one missing id would echo as several confusing errors.
  if (!p.empty()) return p.error();
  std::set<std::string> ids;
  for (const Subtask& s : d.subtasks) ids.insert(s.id);
  for (size_t k = 0; k < d.parallel_groups.size(); ++k)
    for (const std::string& id : d.parallel_groups[k])
      if (!ids.count(id)) p.add("parallel_groups[" + std::to_string(k) + "]", "refers to unknown id '" + id + "'");
  for (size_t i = 0; i < d.subtasks.size(); ++i) {
    const std::string& r = d.subtasks[i].reports_to;
    if (r.empty() || r == "manager") continue;
    if (r == d.subtasks[i].id)
      p.add("subtask #" + std::to_string(i + 1), "reports_to refers to itself");
    else if (!ids.count(r))
      p.add("subtask #" + std::to_string(i + 1),
            "reports_to refers to unknown id '" + r + "' (use \"manager\" or a worker id)");
  }
  if (Status s = validate_subtasks(d.subtasks); !s) p.add("", s.error().message);
  if (!p.empty()) return p.error();
  return d;
}

}  // namespace kaisha::planning
