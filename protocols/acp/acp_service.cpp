#include "protocols/acp/acp_service.hpp"

#include "runtime/core/clock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include "runtime/core/utf8.hpp"
#include "runtime/jsonrpc/company_capabilities.hpp"
#include "runtime/jsonrpc/descriptor.hpp"

namespace kaisha::acp {
namespace {

AcpReply error_reply(int status, std::string_view code, std::string_view message) {
  return AcpReply{status, error_body(code, message), {}};
}

constexpr const char* kAcpRun = "acp_run";

AcpReply not_found_run(const std::string& id) {
  const std::string shown = utf8::repair(utf8::truncate(id, 64));
  if (!is_uuid(id))
    return error_reply(404, "not_found", "Run '" + shown + "' not found: run ids are UUIDs (8-4-4-4-12 hex digits)");
  return error_reply(
      404, "not_found",
      "Run " + shown + " not found: this server never gave out that id, and its journal has no run by it");
}

}  // namespace

// One run: its public state, the events so far and the open streams. The
// company's listener and HTTP threads meet here, under `mu`.
struct AcpService::Entry {
  std::mutex mu;
  std::condition_variable cv;
  Run run;
  std::vector<json> events;
  struct Sink {
    uint64_t id;
    EventSink send;
    std::function<void()> done;
  };
  std::vector<Sink> sinks;
  uint64_t next_sink = 0;

  // Ends the stream `id` early (its peer went away).
  void drop_sink(uint64_t id) {
    std::lock_guard lock(mu);
    auto it = std::find_if(sinks.begin(), sinks.end(), [&](const Sink& s) { return s.id == id; });
    if (it == sinks.end()) return;
    if (it->done) it->done();
    sinks.erase(it);
  }

  // Records `event` and passes it to every open stream; a stream whose peer
  // is gone is dropped (and its `done` run).
  void publish_locked(json event) {
    for (auto it = sinks.begin(); it != sinks.end();) {
      if (it->send(event)) {
        ++it;
      } else {
        if (it->done) it->done();
        it = sinks.erase(it);
      }
    }
    events.push_back(std::move(event));
  }
  void end_streams_locked() {
    for (auto& s : sinks)
      if (s.done) s.done();
    sinks.clear();
    cv.notify_all();
  }

  // The run ends as failed with `error`, and every stream with it.
  void fail_locked(std::string error) {
    run.status = RunStatus::failed;
    run.error = std::move(error);
    run.finished_at = iso_now();
    publish_locked(run_event(run));
    end_streams_locked();
  }

  // What the company answered to the run's submission: a task id, or a refusal that fails the run.
  void submitted_locked(const Result<std::string>& task_id) {
    if (!task_id.ok()) return fail_locked("the company refused the task: " + task_id.error().message);
    run.task_id = *task_id;
  }

  // The run ends as its task ended (`state`, with the answer or the error as `text`) at `at`.
  void end_locked(company::TaskState state, const std::string& text, const std::string& at) {
    if (state == company::TaskState::completed) {
      const std::string role = "agent/" + run.agent_name;
      publish_locked(message_created(role, at));
      publish_locked(message_part(text));
      publish_locked(message_completed(role, text, at));
      run.output = text;
    } else {
      run.error = text;
    }
    run.status = run_status_of(state);
    run.finished_at = at;
    publish_locked(run_event(run));
    end_streams_locked();
  }

  void on_event(const msg::ProgressEvent& e) {
    std::lock_guard lock(mu);
    if (is_terminal(run.status)) return;
    const company::TaskState state = company::state_after_event(e.kind);
    if (company::is_final(state)) return end_locked(state, e.text, iso_now());
    if (state == company::TaskState::input_required) {
      // The client resumes it with POST /runs/{id} and await_resume.
      run.status = RunStatus::awaiting;
      run.question = e.text;
      publish_locked(run_event(run));
      return end_streams_locked();
    }
    if (run.status == RunStatus::created || run.status == RunStatus::awaiting) {
      run.status = RunStatus::in_progress;
      run.question.clear();
      publish_locked(run_event(run));
    }
    publish_locked(generic_event(json{{"kind", e.kind}, {"agent", e.agent}, {"text", e.text}, {"data", e.data}}));
  }
};

AcpService::AcpService(company::CompanyService& company, AcpServiceOptions options)
    : company_(company), options_(std::move(options)) {}

AcpReply AcpService::agents(int limit, int offset) const {
  json list = json::array();
  if (offset <= 0 && limit > 0) list.push_back(agent(options_.agent_name).body);
  return AcpReply{200, json{{"agents", std::move(list)}}, {}};
}

AcpReply AcpService::agent(const std::string& name) const {
  if (name != options_.agent_name) return error_reply(404, "not_found", "Agent " + name + " not found");
  jsonrpc::CapabilityDescriptor d;
  d.kind = jsonrpc::CapabilityKind::agent;
  d.name = options_.agent_name;
  d.description = options_.description;
  d.tags = {"company"};
  if (const std::string s = company_.strategy(); !s.empty()) d.tags.push_back(s);
  d.input_modes = {"text/plain"};
  d.output_modes = {"text/plain"};
  json m = jsonrpc::to_acp_manifest(d);
  m["name"] = options_.agent_name;  // already a DNS label by configuration
  // What the company can do: its task and each employee it has hired — the
  // A2A card's skills. The employees are not ACP agents of their own: like
  // A2A messages, every run goes to the company, whose CEO asks them.
  json capabilities = json::array();
  for (const auto& c : jsonrpc::company_capabilities(company_.agents(), company_.strategy()))
    capabilities.push_back({{"name", c.name}, {"description", c.description}});
  m["metadata"]["capabilities"] = std::move(capabilities);
  return AcpReply{200, std::move(m), {}};
}

Result<RunRequest> AcpService::parse_run_request(const std::string& body, AcpReply* error) const {
  auto fail = [&](int status, const char* code, const std::string& message) -> Error {
    if (error) *error = error_reply(status, code, message);
    return Error{code, message};
  };
  BoundedJson parsed = parse_bounded_json(body, options_.body_limits);
  if (!parsed.ok)
    return fail(parsed.error.kind == JsonParseError::Kind::too_large ? 413 : 400, "invalid_input",
                "request body: " + parsed.error.message);
  const json& j = parsed.value;
  if (!j.is_object()) return fail(400, "invalid_input", "request body must be a JSON object");
  RunRequest r;
  auto name = j.find("agent_name");
  if (name == j.end() || !name->is_string()) return fail(400, "invalid_input", "agent_name: is required (a string)");
  r.agent_name = name->get<std::string>();
  if (r.agent_name != options_.agent_name) return fail(404, "not_found", "Agent " + r.agent_name + " not found");
  auto text = input_text(j.value("input", json()));
  if (!text.ok()) return fail(400, "invalid_input", text.error().message);
  r.input = std::move(text).value();
  if (auto m = j.find("mode"); m != j.end() && !m->is_null()) {
    if (!m->is_string() || (*m != "sync" && *m != "async" && *m != "stream"))
      return fail(400, "invalid_input", "mode: must be \"sync\", \"async\" or \"stream\"");
    r.mode = m->get<std::string>();
  }
  if (auto s = j.find("session_id"); s != j.end() && !s->is_null()) {
    if (!s->is_string() || !is_uuid(s->get<std::string>()))
      return fail(400, "invalid_input", "session_id: must be a UUID");
    r.session_id = s->get<std::string>();
  }
  return r;
}

std::shared_ptr<AcpService::Entry> AcpService::create(const RunRequest& request) {
  auto e = std::make_shared<Entry>();
  e->run.run_id = new_uuid();
  e->run.agent_name = request.agent_name;
  e->run.session_id = request.session_id;
  e->run.created_at = iso_now();
  e->events.push_back(run_event(e->run));
  return e;
}

void AcpService::remember_locked(const std::shared_ptr<Entry>& e) {
  runs_[e->run.run_id] = e;
  order_.push_back(e->run.run_id);
  while (order_.size() > options_.max_runs) {
    runs_.erase(order_.front());
    order_.pop_front();
  }
}

Status AcpService::submit_and_keep(const std::shared_ptr<Entry>& e, const RunRequest& request) {
  const int64_t created_ms = wall_ms();
  auto id =
      company_.submit_in(request.session_id, request.input, [e](const msg::ProgressEvent& ev) { e->on_event(ev); });
  json data{{"agent_name", request.agent_name}, {"session_id", request.session_id}, {"created_at", e->run.created_at}};
  std::string session = company_.session_id();
  if (id.ok()) {
    if (auto info = company_.task(*id)) session = info->session_id;
  } else {
    data["error"] = "the company refused the task: " + id.error().message;
  }
  // The run id reaches the client only once it is in the journal.
  Status kept = company_.save_handle(company::ProtocolHandle{kAcpRun, e->run.run_id, id.ok() ? *id : std::string(),
                                                             session, created_ms, 0, std::move(data)});
  if (!kept.ok() && id.ok()) (void)company_.cancel(*id);
  {
    std::lock_guard lock(e->mu);
    e->submitted_locked(id);
    if (!kept.ok() && !is_terminal(e->run.status))
      e->fail_locked("the run could not be recorded in the journal, so it was canceled: " + kept.error().message);
  }
  std::lock_guard lock(mu_);
  if (kept.ok()) remember_locked(e);
  return kept;
}

std::shared_ptr<AcpService::Entry> AcpService::find(const std::string& run_id) {
  {
    std::lock_guard lock(mu_);
    auto it = runs_.find(run_id);
    if (it != runs_.end()) return it->second;
  }
  // Not in memory: a run an earlier server gave out (or one this server
  // forgot for newer ones) is found in the journal. One at a time, so that
  // a run is followed by one entry only.
  if (!is_uuid(run_id)) return nullptr;
  std::lock_guard restoring(restore_mu_);
  {
    std::lock_guard lock(mu_);
    auto it = runs_.find(run_id);
    if (it != runs_.end()) return it->second;
  }
  auto handle = company_.find_handle(kAcpRun, run_id);
  if (!handle) return nullptr;
  auto e = restore(*handle);
  std::lock_guard lock(mu_);
  remember_locked(e);
  return e;
}

std::shared_ptr<AcpService::Entry> AcpService::restore(const company::ProtocolHandle& h) {
  auto e = std::make_shared<Entry>();
  Run& run = e->run;
  run.run_id = h.handle;
  run.agent_name = h.data.value("agent_name", options_.agent_name);
  run.session_id = h.data.value("session_id", std::string());
  run.created_at = h.data.value("created_at", iso_of_ms(h.created_ms));
  run.task_id = h.task_id;
  e->events.push_back(run_event(run));
  auto settle = [&](const std::optional<company::TaskInfo>& info) {
    std::lock_guard lock(e->mu);
    if (!info)
      return e->fail_locked(
          "the journal has no task for this run (the server stopped before it was recorded), so it never ran; start a "
          "new run");
    e->end_locked(info->state, info->state == company::TaskState::completed ? info->answer : info->error,
                  iso_of_ms(info->updated_ms));
  };
  if (h.data.contains("error") && h.data["error"].is_string()) {
    std::lock_guard lock(e->mu);
    e->fail_locked(h.data["error"].get<std::string>());
    return e;
  }
  auto info = h.task_id.empty() ? std::nullopt : company_.task(h.task_id);
  if (!info || company::is_final(info->state)) {
    settle(info);
    return e;
  }
  // Still running (the restarted server resumed it) or waiting its turn:
  // followed from here on, as a new run is.
  auto sub = company_.subscribe(h.task_id, [e](const msg::ProgressEvent& ev) { e->on_event(ev); });
  if (!sub.ok()) settle(company_.task(h.task_id));  // it ended meanwhile
  return e;
}

AcpReply AcpService::start_run(const RunRequest& request) {
  auto e = create(request);
  if (Status kept = submit_and_keep(e, request); !kept.ok())
    return error_reply(500, "server_error",
                       "the run could not be recorded in the journal, so it was not started: " + kept.error().message);
  std::unique_lock lock(e->mu);
  if (request.mode == "sync")
    e->cv.wait_for(lock, options_.sync_wait,
                   [&] { return is_terminal(e->run.status) || e->run.status == RunStatus::awaiting; });
  AcpReply r{request.mode == "async" ? 202 : 200, e->run.to_json(), {{"Run-ID", e->run.run_id}}};
  return r;
}

AcpService::RunStream AcpService::stream_run(const RunRequest& request, EventSink sink, std::function<void()> done) {
  auto e = create(request);
  (void)submit_and_keep(e, request);  // a run that could not be kept is failed, saying so
  uint64_t sink_id = 0;
  {
    std::lock_guard lock(e->mu);
    // The stream starts with run.created, sent now that the run is kept,
    // and the events so far.
    bool open = true;
    for (const json& ev : e->events)
      if (!(open = sink(ev))) break;
    if (!open || is_terminal(e->run.status) || e->run.status == RunStatus::awaiting) {
      if (done) done();
    } else {
      sink_id = ++e->next_sink;
      e->sinks.push_back({sink_id, std::move(sink), std::move(done)});
    }
  }
  return RunStream{e->run.run_id, [weak = std::weak_ptr<Entry>(e), sink_id] {
                     if (auto entry = weak.lock()) entry->drop_sink(sink_id);
                   }};
}

AcpReply AcpService::get_run(const std::string& run_id) {
  auto e = find(run_id);
  if (!e) return not_found_run(run_id);
  std::lock_guard lock(e->mu);
  return AcpReply{200, e->run.to_json(), {}};
}

AcpReply AcpService::run_events(const std::string& run_id) {
  auto e = find(run_id);
  if (!e) return not_found_run(run_id);
  std::lock_guard lock(e->mu);
  return AcpReply{200, json{{"events", e->events}}, {}};
}

AcpReply AcpService::cancel_run(const std::string& run_id) {
  auto e = find(run_id);
  if (!e) return not_found_run(run_id);
  std::string task_id;
  json snapshot;
  {
    std::lock_guard lock(e->mu);
    if (is_terminal(e->run.status) || e->run.status == RunStatus::cancelling)
      return error_reply(403, "invalid_input",
                         "Run " + run_id + " has status " + to_string(e->run.status) + " and cannot be cancelled");
    e->run.status = RunStatus::cancelling;
    snapshot = e->run.to_json();
    task_id = e->run.task_id;
  }
  // The company's "canceled" event moves the run on to cancelled.
  if (Status s = company_.cancel(task_id); !s.ok()) {
    // Usually the task ended on its own meanwhile and its final event
    // settles the run; otherwise the run fails with the reason. (The
    // company is asked before taking the run's lock: its listener takes
    // them in the other order.)
    auto info = company_.task(task_id);
    std::lock_guard lock(e->mu);
    if (e->run.status == RunStatus::cancelling) {
      if (!info || !company::is_final(info->state)) e->fail_locked("cancel failed: " + s.error().message);
    }
  }
  return AcpReply{202, std::move(snapshot), {}};
}

AcpReply AcpService::resume_run(const std::string& run_id, const std::string& body) {
  BoundedJson parsed = parse_bounded_json(body, options_.body_limits);
  if (!parsed.ok)
    return error_reply(parsed.error.kind == JsonParseError::Kind::too_large ? 413 : 400, "invalid_input",
                       "request body: " + parsed.error.message);
  const json& j = parsed.value;
  if (!j.is_object()) return error_reply(400, "invalid_input", "request body must be a JSON object");
  auto ar = j.find("await_resume");
  if (ar == j.end() || !ar->is_object())
    return error_reply(400, "invalid_input", "await_resume: is required (an object)");
  if (auto m = j.find("mode");
      m != j.end() && !m->is_null() && (!m->is_string() || (*m != "sync" && *m != "async" && *m != "stream")))
    return error_reply(400, "invalid_input", "mode: must be \"sync\", \"async\" or \"stream\"");
  const std::string mode = j.value("mode", json("sync")).is_string() ? j.value("mode", std::string("sync")) : "sync";
  auto e = find(run_id);
  if (!e) return not_found_run(run_id);
  std::string task_id, asked;
  {
    std::lock_guard lock(e->mu);
    asked = e->run.question;
    if (e->run.status != RunStatus::awaiting)
      return error_reply(403, "invalid_input",
                         "Run " + run_id + " has status " + to_string(e->run.status) +
                             " and cannot be resumed: only an awaiting run can");
    task_id = e->run.task_id;
  }
  auto message = ar->find("message");
  if (ar->value("type", "") != "message" || message == ar->end() || !message->is_object())
    return error_reply(400, "invalid_input", "await_resume: must be {\"type\": \"message\", \"message\": {...}}");
  auto text = input_text(json::array({*message}));
  if (!text.ok()) return error_reply(400, "invalid_input", "await_resume.message: " + text.error().message);
  if (Status s = company_.provide_input(task_id, *text); !s.ok())
    return error_reply(409, "invalid_input", "Run " + run_id + ": " + s.error().message);
  std::unique_lock lock(e->mu);
  if (e->run.status == RunStatus::awaiting && e->run.question == asked) {  // no later event moved it yet
    e->run.status = RunStatus::in_progress;
    e->run.question.clear();
    e->publish_locked(run_event(e->run));
  }
  if (mode == "sync")
    e->cv.wait_for(lock, options_.sync_wait,
                   [&] { return is_terminal(e->run.status) || e->run.status == RunStatus::awaiting; });
  return AcpReply{mode == "sync" ? 200 : 202, e->run.to_json(), {{"Run-ID", run_id}}};
}

}  // namespace kaisha::acp
