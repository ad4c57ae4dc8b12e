#include "runtime/tools/task_relative_paths.hpp"

namespace kaisha::tools {

std::string task_relative_path(const std::string& path, const std::string& task_id) {
  std::string p = path;
  if (p.rfind("./", 0) == 0)
    p.erase(0, 2);
  else if (p.rfind("/", 0) == 0)
    p.erase(0, 1);
  const std::string prefix = "workspace/tasks/";
  if (p.rfind(prefix, 0) != 0) return path;
  const size_t end = p.find('/', prefix.size());
  const std::string id = p.substr(prefix.size(), end == std::string::npos ? std::string::npos : end - prefix.size());
  if (id != task_id && id != "{task_id}" && id != "task_id") return path;
  if (end == std::string::npos || end + 1 == p.size()) return ".";
  return p.substr(end + 1);
}

json task_relative_arguments(const json& args, const std::string& task_id) {
  if (!args.is_object()) return args;
  json out = args;
  for (const char* key : {"file_path", "path", "dir_path", "source", "destination"})
    if (auto it = out.find(key); it != out.end() && it->is_string())
      *it = task_relative_path(it->get<std::string>(), task_id);
  if (auto it = out.find("paths"); it != out.end() && it->is_array())
    for (json& p : *it)
      if (p.is_string()) p = task_relative_path(p.get<std::string>(), task_id);
  return out;
}

}  // namespace kaisha::tools
