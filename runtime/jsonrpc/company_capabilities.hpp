// The company as the protocols describe it: one capability for "give the
// company a task" and one per employee it has hired, built from the agents
// view of company::CompanyService::agents() ({name: {description, type,
// costs...}}). The A2A agent card lists them as skills; the ACP manifest of
// the company agent lists them as its metadata.capabilities. One list, so
// both protocols say the same thing.
#pragma once

#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/jsonrpc/descriptor.hpp"

namespace kaisha::jsonrpc {

// The company first (name "company"), then each hired employee in the
// order of `agents`; a non-object `agents` gives the company alone.
std::vector<CapabilityDescriptor> company_capabilities(const json& agents, const std::string& strategy);

}  // namespace kaisha::jsonrpc
