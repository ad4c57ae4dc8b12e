// Reads the `halo:` section of a config file into HaloSettings
// (runtime/halo/halo_settings.hpp). Every wrong value is refused where it is
// written, as "<file>:<line>: halo.<key>: <what>"; a key not listed is
// refused with the closest one suggested.
#pragma once

#include <any>

#include <yaml-cpp/yaml.h>

#include "runtime/config/yaml/yaml_reader.hpp"
#include "runtime/core/result.hpp"
#include "runtime/halo/halo_settings.hpp"

namespace kaisha::halo {

// The config section's name.
inline constexpr const char* kSection = "halo";

// `section` (null or undefined: the defaults) as HaloSettings.
Result<HaloSettings> read_halo_settings(const YAML::Node& section, const config::YamlReader& reader);

// read_halo_settings as the catalog entry's read_settings.
Result<std::any> read_halo_section(const YAML::Node& section, const config::YamlReader& reader);

}  // namespace kaisha::halo
