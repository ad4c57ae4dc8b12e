#include "runtime/pyramid/final_output.hpp"

#include "runtime/core/bounded_json.hpp"
#include "runtime/core/confined_fs.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::pyramid {
namespace {

Error refuse(const std::string& what) { return Error{"final_output", what}; }

}  // namespace

json FinalOutput::to_json() const {
  json j{{"status", success ? "success" : "error"}, {"output", output}, {"error_information", error_information}};
  if (!files.empty()) {
    json f = json::array();
    for (const auto& r : files) f.push_back({{"path", r.path}, {"description", r.description}});
    j["files"] = std::move(f);
  }
  if (!verdict.is_null()) j["judge"] = verdict;
  return j;
}

Result<std::vector<FileRef>> parse_file_refs(const json& list, const std::string& key, size_t max_entries) {
  auto bad = [](const std::string& what) { return Error{"file_refs", what}; };
  if (!list.is_array()) return bad(key + " must be a list of {path, description}");
  if (list.size() > max_entries)
    return bad(key + " lists " + std::to_string(list.size()) + " entries, more than " + std::to_string(max_entries) +
               ": list a directory instead");
  std::vector<FileRef> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    const std::string where = key + "[" + std::to_string(i) + "]";
    if (!e.is_object() || !e.contains("path") || !e["path"].is_string())
      return bad(where + " needs a path (relative to the task workspace) and a description");
    FileRef ref;
    ref.path = e["path"].get<std::string>();
    auto parts = split_relative(ref.path);
    if (!parts.ok()) return bad(where + ": " + parts.error().message);
    if (parts->empty()) return bad(where + ": the path names no file");
    ref.path = join_relative(*parts);
    if (auto d = e.find("description"); d != e.end() && d->is_string()) ref.description = d->get<std::string>();
    if (ref.description.find_first_not_of(" \t\r\n") == std::string::npos)
      return bad(where + " (" + ref.path + ") needs a description of what the file holds");
    out.push_back(std::move(ref));
  }
  return out;
}

Result<FinalOutput> parse_final_output(std::string_view arguments, const FinalOutputLimits& limits) {
  BoundedJson parsed = parse_bounded_json(arguments, JsonLimits{limits.max_output_bytes * 4 + 4096, 16});
  if (!parsed.ok) return refuse("the arguments are not JSON: " + parsed.error.message);
  const json& j = parsed.value;
  if (!j.is_object()) return refuse("the arguments must be a JSON object with status, output and error_information");
  for (const auto& [key, value] : j.items())
    if (key != "status" && key != "output" && key != "error_information" && key != "files" && key != "task_id")
      return refuse("unknown key \"" + key + "\" (status, output, error_information, files)");

  FinalOutput out;
  auto status = j.find("status");
  if (status == j.end() || !status->is_string()) return refuse("status is required: \"success\" or \"error\"");
  const std::string& s = status->get_ref<const std::string&>();
  if (s != "success" && s != "error")
    return refuse("status must be \"success\" or \"error\", not \"" + utf8::shorten(s, 40) + "\"");
  out.success = s == "success";

  auto output = j.find("output");
  if (output == j.end() || !output->is_string()) return refuse("output is required, as a string");
  out.output = output->get<std::string>();
  if (out.output.size() > limits.max_output_bytes)
    return refuse("output is " + std::to_string(out.output.size()) + " bytes, more than " +
                  std::to_string(limits.max_output_bytes) +
                  ": write the content to a file in the workspace and list it in files with a description");

  if (auto e = j.find("error_information"); e != j.end() && !e->is_null()) {
    if (!e->is_string()) return refuse("error_information must be a string");
    out.error_information = e->get<std::string>();
  }
  if (!out.success && out.error_information.find_first_not_of(" \t\r\n") == std::string::npos)
    return refuse("status \"error\" needs the reason in error_information");
  if (out.success) out.error_information.clear();  // "Only fill in the reason for failure"

  if (auto f = j.find("files"); f != j.end() && !f->is_null()) {
    auto files = parse_file_refs(*f, "files", limits.max_files);
    if (!files.ok()) return refuse(files.error().message);
    out.files = std::move(files).value();
  }
  return out;
}

FinalOutput failed_output(std::string why) {
  FinalOutput out;
  out.success = false;
  out.output = "The agent ended without a valid final_output.";
  out.error_information = std::move(why);
  out.broken = true;
  return out;
}

}  // namespace kaisha::pyramid
