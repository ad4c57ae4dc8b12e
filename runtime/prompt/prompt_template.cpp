#include "runtime/prompt/prompt_template.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

#include "runtime/core/data_paths.hpp"

namespace kaisha::planning {
namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Calls on_text for literal runs and on_name for each placeholder, in order.
void scan(const std::string& t, const std::function<void(std::string_view)>& on_text,
          const std::function<void(const std::string&)>& on_name) {
  size_t i = 0, literal = 0;
  while ((i = t.find("{{", i)) != std::string::npos) {
    size_t j = i + 2;
    while (j < t.size() && t[j] == ' ') ++j;
    size_t name_begin = j;
    while (j < t.size() && name_char(t[j])) ++j;
    size_t name_end = j;
    while (j < t.size() && t[j] == ' ') ++j;
    if (name_end > name_begin && t.compare(j, 2, "}}") == 0) {
      on_text(std::string_view(t).substr(literal, i - literal));
      on_name(t.substr(name_begin, name_end - name_begin));
      i = literal = j + 2;
    } else {
      ++i;  // not a placeholder: keep the braces as text
    }
  }
  on_text(std::string_view(t).substr(literal));
}

}  // namespace

Result<PromptTemplate> PromptTemplate::load(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text) return Error{"prompt", "prompt template " + path + " cannot be read: " + text.error().message};
  return PromptTemplate(std::move(text).value(), path);
}

Result<PromptTemplate> PromptTemplate::load_exactly(const std::string& path, const std::set<std::string>& names) {
  auto t = load(path);
  if (!t.ok()) return t;
  const auto used = t->placeholders();
  if (std::set<std::string>(used.begin(), used.end()) != names) {
    std::string want;
    for (const auto& n : names) want += (want.empty() ? "" : ", ") + std::string("{{") + n + "}}";
    return Error{"prompt", path + ": must use exactly the placeholders " + want};
  }
  return t;
}

PromptTemplate PromptTemplate::from_text(std::string text, std::string origin) {
  return PromptTemplate(std::move(text), std::move(origin));
}

PromptTemplate::PromptTemplate(std::string text, std::string origin)
    : text_(std::move(text)), origin_(std::move(origin)) {
  scan(
      text_,
      [&](std::string_view s) {
        if (!s.empty()) parts_.push_back({std::string(s), false});
      },
      [&](const std::string& n) {
        parts_.push_back({n, true});
      });
}

std::vector<std::string> PromptTemplate::placeholders() const {
  std::vector<std::string> names;
  for (const Part& p : parts_)
    if (p.placeholder && std::find(names.begin(), names.end(), p.text) == names.end()) names.push_back(p.text);
  return names;
}

Result<std::string> PromptTemplate::render(const std::map<std::string, std::string>& values) const {
  std::vector<std::string> missing;
  for (const std::string& n : placeholders())
    if (!values.count(n)) missing.push_back("{{" + n + "}}");
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
    return Error{"prompt", "prompt template " + origin_ + " has no value for " + list};
  }
  std::string out;
  for (const Part& p : parts_) out += p.placeholder ? values.at(p.text) : p.text;
  return out;
}

}  // namespace kaisha::planning
