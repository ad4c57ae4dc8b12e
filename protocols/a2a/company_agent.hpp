// CompanyAgent: the company (company::CompanyService) as the agent A2A
// serves. Every message starts a new company task from its text (and data
// parts, as JSON); the company reads no files, so file parts are refused as
// ContentTypeNotSupported. A company task never asks for input, so a
// message that names an existing task is refused (UnsupportedOperation).
// The context id of every task is the company's session; the answer of a
// completed task is its one artifact ("<task>-answer", named "answer"); a
// failed or canceled task's reason is its status message; the input is the
// history's one user message. The card's skills are the company itself and
// each employee it has hired.
//
// Progress events become status updates: "working" once, then one per event
// (its text as an agent message, kind/agent/data under metadata.kaisha); the
// final event becomes the answer artifact and then the completed status.
#pragma once

#include <string>
#include <string_view>

#include "protocols/a2a/a2a_agent.hpp"
#include "runtime/company/company_service.hpp"

namespace kaisha::a2a {

// The A2A task of a company task, in session `context_id`.
AgentTask company_task(const company::TaskInfo& info, std::string_view context_id);

// The id of the answer artifact of a task (stable, so an artifactUpdate and a
// later GetTask agree).
std::string answer_artifact_id(std::string_view task_id);

class CompanyAgent : public A2aAgent {
 public:
  // `company` must outlive the agent and every subscription.
  explicit CompanyAgent(company::CompanyService& company) : company_(company) {}

  Result<SendOutcome> send(const IncomingMessage& message) override;
  std::optional<AgentTask> task(const std::string& task_id) override;
  Result<AgentTask> wait(const std::string& task_id, std::chrono::milliseconds timeout) override;
  Status cancel(const std::string& task_id) override;
  std::vector<AgentTask> tasks(size_t limit) override;
  Result<uint64_t> subscribe(const std::string& task_id, UpdateListener listener) override;
  void unsubscribe(const std::string& task_id, uint64_t subscription) override;
  std::vector<jsonrpc::CapabilityDescriptor> skills() override;

 private:
  // A task's contextId: the client's conversation, or the session's id when
  // the company hosts one session.
  std::string context_of(const company::TaskInfo& info) const;
  company::CompanyService& company_;
};

}  // namespace kaisha::a2a
