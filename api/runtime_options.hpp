// What a CompanyOptions of the public API means to the runtime: the
// configuration loaded (a file, YAML text or the defaults), the model
// backend (the configured providers unless one is given), the data
// directory chosen. Shared by kaisha::Company and kaisha::Server.
#pragma once

#include "actors/company/company_runtime.hpp"
#include "kaisha/company.hpp"

namespace kaisha::api {

// The configuration's error (file, line, key) when it does not load.
Result<config::Config> load_company_config(const std::string& file, const std::string& text);

Result<actors::RuntimeOptions> runtime_options(CompanyOptions options);

}  // namespace kaisha::api
