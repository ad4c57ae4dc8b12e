#include "runtime/economy/cost_table.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/economy/amount.hpp"

namespace kaisha::economy {

using config::YamlReader;

const ModelCost* CostTable::find(std::string_view key) const {
  for (const auto& m : models_)
    if (m.name == key) return &m;
  for (const auto& m : models_)
    if (m.model_ref == key) return &m;
  return nullptr;
}

ModelCost CostTable::priced(std::string_view ref) const {
  if (const ModelCost* c = find(ref)) return *c;
  ModelCost free;
  free.name = std::string(ref);
  free.model_ref = std::string(ref);
  free.type = "local";
  return free;
}

void CostTable::set(ModelCost cost) {
  for (auto& m : models_) {
    if (m.name == cost.name) {
      m = std::move(cost);
      return;
    }
  }
  models_.push_back(std::move(cost));
}

bool CostTable::remove(std::string_view name) {
  for (auto it = models_.begin(); it != models_.end(); ++it) {
    if (it->name == name) {
      models_.erase(it);
      return true;
    }
  }
  return false;
}

json CostTable::to_json() const {
  json out = json::object();
  for (const auto& m : models_) {
    out[m.name] = json{{"description", m.description},
                       {"create_resource_cost", m.create_resource_cost},
                       {"invoke_resource_cost", m.invoke_resource_cost},
                       {"create_expense_cost", m.create_expense_cost},
                       {"invoke_expense_cost", m.invoke_expense_cost},
                       {"output_expense_cost", m.output_expense_cost}};
  }
  return out;
}

std::string CostTable::to_yaml() const {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "models" << YAML::Value << YAML::BeginMap;
  for (const auto& m : models_) {
    e << YAML::Key << m.name << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "model_ref" << YAML::Value << m.model_ref;
    e << YAML::Key << "type" << YAML::Value << m.type;
    // Amounts are written through format_amount so the file shows 0.15, not
    // 0.14999999999999999.
    auto num = [&](const char* k, double v) { e << YAML::Key << k << YAML::Value << format_amount(v); };
    num("create_resource_cost", m.create_resource_cost);
    num("invoke_resource_cost", m.invoke_resource_cost);
    num("create_expense_cost", m.create_expense_cost);
    num("invoke_expense_cost", m.invoke_expense_cost);
    num("output_expense_cost", m.output_expense_cost);
    e << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << m.description;
    if (!m.tags.empty()) e << YAML::Key << "tags" << YAML::Value << YAML::Flow << m.tags;
    e << YAML::EndMap;
  }
  e << YAML::EndMap << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

namespace {

Result<ModelCost> parse_model(const YamlReader& r, const YAML::Node& key, const YAML::Node& node) {
  ModelCost m;
  m.name = key.Scalar();
  const std::string path = "models." + m.name;
  if (m.name.empty()) return r.error_at(key, "models", "a model name cannot be empty");
  if (Status s = r.expect_map(node, path); !s) return s.error();
  static const std::vector<std::string> kKeys = {"model_ref",
                                                 "type",
                                                 "create_resource_cost",
                                                 "invoke_resource_cost",
                                                 "create_expense_cost",
                                                 "invoke_expense_cost",
                                                 "output_expense_cost",
                                                 "description",
                                                 "tags"};
  if (Status s = r.check_keys(node, path, kKeys); !s) return s.error();
  if (!node.IsMap()) return m;  // "name:" with nothing: all zero, unlikely but harmless
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string k = it->first.Scalar();
    const std::string p = path + "." + k;
    const YAML::Node v = it->second;  // a copy: it-> returns a temporary proxy
    if (k == "tags") {
      if (Status st = r.optional_strings(node, path, "tags", m.tags); !st) return st.error();
      continue;
    }
    if (k == "model_ref" || k == "type" || k == "description") {
      auto s = r.read_string(v, p);
      if (!s) return s.error();
      if (k == "model_ref")
        m.model_ref = *s;
      else if (k == "type") {
        if (*s != "local" && *s != "cloud")
          return r.error_at(v, p, "expected \"local\" or \"cloud\", got \"" + *s + "\"");
        m.type = *s;
      } else
        m.description = *s;
      continue;
    }
    auto d = r.read_number(v, p);
    if (!d) return d.error();
    if (*d < 0) return r.error_at(v, p, "a cost cannot be negative, got " + format_amount(*d));
    if (k == "create_resource_cost")
      m.create_resource_cost = *d;
    else if (k == "invoke_resource_cost")
      m.invoke_resource_cost = *d;
    else if (k == "create_expense_cost")
      m.create_expense_cost = *d;
    else if (k == "invoke_expense_cost")
      m.invoke_expense_cost = *d;
    else
      m.output_expense_cost = *d;
  }
  if (m.type.empty()) m.type = m.model_ref.rfind("ollama:", 0) == 0 ? "local" : "cloud";
  if (m.model_ref.empty()) m.model_ref = m.type == "local" ? "ollama:" + m.name : m.name;
  return m;
}

Result<CostTable> read_cost_table(const std::string& text, const std::string& source) {
  auto doc = config::parse_yaml(text, source);
  if (!doc) return doc.error();
  YamlReader r(source);
  const YAML::Node& root = *doc;
  CostTable table;
  if (root.IsNull()) return table;
  if (Status s = r.expect_map(root, ""); !s) return s.error();
  if (Status s = r.check_keys(root, "", {"models"}); !s) return s.error();
  YAML::Node models = root["models"];
  if (!models || models.IsNull()) return table;
  if (Status s = r.expect_map(models, "models"); !s) return s.error();
  for (auto it = models.begin(); it != models.end(); ++it) {
    if (!it->first.IsScalar()) return r.error_at(it->first, "models", "a model name must be a string");
    if (table.find(it->first.Scalar()) && table.find(it->first.Scalar())->name == it->first.Scalar())
      return r.error_at(it->first, "models." + it->first.Scalar(), "duplicate model name");
    auto m = parse_model(r, it->first, it->second);
    if (!m) return m.error();
    table.set(std::move(*m));
  }
  return table;
}

}  // namespace

Result<CostTable> parse_cost_table(const std::string& text, const std::string& source) {
  return config::guard_yaml(source, [&] { return read_cost_table(text, source); });
}

Result<CostTable> load_cost_table_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"config", "cannot open cost table file '" + path + "'"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_cost_table(ss.str(), path);
}

Status save_cost_table_file(const CostTable& table, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{"config", "cannot write cost table file '" + tmp + "'"};
    out << table.to_yaml();
    if (!out.flush()) return Error{"config", "cannot write cost table file '" + tmp + "'"};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error{"config", "cannot replace cost table file '" + path + "'"};
  }
  return Status::Ok();
}

}  // namespace kaisha::economy
