// CompanyBackend: the company offered as an MCP server. Tools (specs in
// data/mcp/company_server.json): run_task (submit, stream progress, wait;
// cancelling the request cancels the task), ask_agent, list_agents,
// get_budget, search_memory. run_task runs as a task of the tasks
// extension for a client that declared it (the company's questions become
// the task's inputRequests; tasks/cancel cancels the company's task; the
// task outlives a restart of the server). Resources: kaisha://tasks/<id> (a task's state
// and answer) and kaisha://tasks/<id>/journal, listed for the recent tasks.
// Prompts: delegate_task.
#pragma once

#include <memory>
#include <string>

#include "protocols/mcp/server/mcp_backend.hpp"
#include "runtime/company/company_service.hpp"

namespace kaisha::mcp {

class CompanyBackend : public McpBackend {
 public:
  // Reads the tool specs and texts (default: data/mcp/company_server.json).
  // `company` must outlive the backend.
  static Result<std::unique_ptr<CompanyBackend>> load(company::CompanyService& company, const std::string& path = "");

  json server_info() const override;
  std::string instructions() const override;
  std::vector<jsonrpc::CapabilityDescriptor> tools() override;
  std::optional<jsonrpc::CapabilityDescriptor> find_tool(const std::string& name) override;
  Result<json> call_tool(const std::string& name, const json& arguments, McpCallContext& ctx) override;
  TaskSupport task_support(const std::string& name) override;
  // run_task's tasks are kept as protocol handles of the company (its
  // journal), with the company task's id; a restarted server follows that
  // task again (its answer, or its questions as inputRequests).
  Status keep_task(const KeptTask& task) override;
  std::vector<KeptTask> kept_tasks() override;
  Result<json> resume_task(const json& work, McpCallContext& ctx) override;
  std::vector<json> resources() override;
  std::vector<json> resource_templates() override;
  Result<json> read_resource(const std::string& uri) override;
  std::vector<json> prompts() override;
  Result<json> get_prompt(const std::string& name, const json& arguments, McpCallContext& ctx) override;

 private:
  CompanyBackend(company::CompanyService& company, json data, std::vector<jsonrpc::CapabilityDescriptor> tools,
                 json question)
      : company_(company), data_(std::move(data)), tools_(std::move(tools)), question_(std::move(question)) {}
  Result<json> run_task(const std::string& task, McpCallContext& ctx);
  std::string text(const std::string& key, const json& vars) const;

  company::CompanyService& company_;
  json data_;
  std::vector<jsonrpc::CapabilityDescriptor> tools_;
  json question_;  // the elicitation for the company's questions (data/mcp/run_task_question.json)
};

}  // namespace kaisha::mcp
