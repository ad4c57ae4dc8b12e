// Reads the `hiva:` section of a config file into HivaSettings
// (runtime/hiva/hiva_settings.hpp). Every wrong value is refused where it is
// written, as "<file>:<line>: hiva.<key>: <what>"; a key not listed is
// refused with the closest one suggested.
#pragma once

#include <any>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/result.hpp"
#include "runtime/hiva/hiva_settings.hpp"

namespace kaisha::hiva {

// The config section's name.
inline constexpr const char* kSection = "hiva";

// `section` (null or undefined: the defaults) as HivaSettings.
Result<HivaSettings> read_hiva_settings(const YAML::Node& section, const config::YamlReader& reader);

// read_hiva_settings as the catalog entry's read_settings.
Result<std::any> read_hiva_section(const YAML::Node& section, const config::YamlReader& reader);

}  // namespace kaisha::hiva
