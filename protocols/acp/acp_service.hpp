// AcpService: the company as an ACP agent (REST, OpenAPI 0.2.0), independent
// of HTTP. The company is one agent (options.agent_name); a run is one
// company task. A run's status follows its task: created while the task
// waits its turn, in-progress once the company works on it, then completed
// (the answer is the run's output message), failed (the error is the run's
// error) or, after a cancel, cancelling → cancelled. The company's progress
// events travel as `generic` events between run.in-progress and the answer's
// message.created / message.part / message.completed.
//
// Runs are kept in memory (the newest max_runs), each with its events, so
// GET /runs/{id} and /runs/{id}/events work after the run ended. Each run id
// is also kept in the company's journal (CompanyService::save_handle) before
// the client gets it: a run this process does not hold — one an earlier
// server gave out, or one forgotten for newer ones — is found there and
// shows its task's state (still running, followed from then on; or how it
// ended); its events are those since this process took it up.
//
// Thread-safety: every method may be called from several threads at once.
// The company must outlive the service.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "protocols/acp/acp_run.hpp"
#include "runtime/company/company_service.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::acp {

struct AcpServiceOptions {
  std::string agent_name = "kaisha";
  std::string description = "A company of LLM agents: a CEO hires, asks and fires employees to answer your task.";
  // How long a sync run (or a sync resume) waits before answering with the
  // run as it stands.
  std::chrono::milliseconds sync_wait{std::chrono::minutes(10)};
  size_t max_runs = 1000;
  // Size and nesting of a request body (runtime/core/bounded_json.hpp).
  JsonLimits body_limits;
};

// What an endpoint answers: an HTTP status and a JSON body (a Run, a list,
// or an ACP error body), plus headers such as Run-ID.
struct AcpReply {
  int status = 200;
  json body;
  std::map<std::string, std::string> headers;
};

// A validated POST /runs body.
struct RunRequest {
  std::string agent_name;
  std::string input;  // the text of the input messages
  std::string mode = "sync";
  std::string session_id;  // "" or a UUID
};

class AcpService {
 public:
  explicit AcpService(company::CompanyService& company, AcpServiceOptions options = {});

  AcpReply ping() const { return {200, json::object(), {}}; }
  AcpReply agents(int limit, int offset) const;
  AcpReply agent(const std::string& name) const;

  // Parses and checks a POST /runs body: JSON object, known agent, input
  // messages with text, mode sync|async|stream, session_id a UUID. The
  // error reply is 400 invalid_input or 404 not_found.
  Result<RunRequest> parse_run_request(const std::string& body, AcpReply* error) const;

  // sync: 200 and the finished run (or, after sync_wait, the run so far);
  // async: 202 and the created run. Either way with a Run-ID header.
  AcpReply start_run(const RunRequest& request);

  // Receives each event of a streamed run; false once the peer is gone.
  using EventSink = std::function<bool(const json& event)>;
  // What stream_run started: the run's id, and `stop`, which ends this
  // stream early (its peer went away): `done` runs if it has not, and the run
  // lets go of the sink at once. `stop` is safe from any thread, more than
  // once, and after the stream ended.
  struct RunStream {
    std::string run_id;
    std::function<void()> stop;
  };
  // stream: starts the run; its events (from run.created on) go to `sink`,
  // then `done` runs after the terminal one (or once the sink reports the
  // peer gone, or `stop` is called).
  RunStream stream_run(const RunRequest& request, EventSink sink, std::function<void()> done);

  AcpReply get_run(const std::string& run_id);
  AcpReply run_events(const std::string& run_id);
  // 202 with the run (cancelling) for a live run; 403 for an ended one.
  AcpReply cancel_run(const std::string& run_id);
  // Resume answers an awaiting run; kaisha's runs never await, so this
  // checks the body and the run, then says why it cannot resume (403), or
  // 400/404 for a bad body or an unknown run.
  AcpReply resume_run(const std::string& run_id, const std::string& body);

 private:
  struct Entry;
  std::shared_ptr<Entry> create(const RunRequest& request);
  // Submits the run's task and keeps the run id in the journal (failing the
  // run, its task canceled, when that fails), then remembers the run.
  Status submit_and_keep(const std::shared_ptr<Entry>& e, const RunRequest& request);
  void remember_locked(const std::shared_ptr<Entry>& e);
  // In memory, or else from the journal.
  std::shared_ptr<Entry> find(const std::string& run_id);
  // A run from its kept handle, in its task's current state.
  std::shared_ptr<Entry> restore(const company::ProtocolHandle& handle);

  company::CompanyService& company_;
  AcpServiceOptions options_;
  std::mutex restore_mu_;  // before mu_
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> runs_;
  std::deque<std::string> order_;  // run ids, oldest first
};

}  // namespace kaisha::acp
