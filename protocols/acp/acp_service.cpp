#include "protocols/acp/acp_service.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/jsonrpc/company_capabilities.hpp"
#include "runtime/jsonrpc/descriptor.hpp"

namespace kaisha::acp {
namespace {

AcpReply error_reply(int status, std::string_view code, std::string_view message) {
  return AcpReply{status, error_body(code, message), {}};
}

AcpReply not_found_run(const std::string& id) { return error_reply(404, "not_found", "Run " + id + " not found"); }

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

  void on_event(const msg::ProgressEvent& e) {
    std::lock_guard lock(mu);
    if (is_terminal(run.status)) return;
    const std::string role = "agent/" + run.agent_name;
    const company::TaskState state = company::state_after_event(e.kind);
    if (state == company::TaskState::completed) {
      const std::string at = iso_now();
      publish_locked(message_created(role, at));
      publish_locked(message_part(e.text));
      publish_locked(message_completed(role, e.text, at));
      run.status = RunStatus::completed;
      run.output = e.text;
      run.finished_at = at;
      publish_locked(run_event(run));
      return end_streams_locked();
    }
    if (company::is_final(state)) {
      run.status = run_status_of(state);
      run.error = e.text;
      run.finished_at = iso_now();
      publish_locked(run_event(run));
      return end_streams_locked();
    }
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
  d.tags = {"company", "hashiru"};
  d.input_modes = {"text/plain"};
  d.output_modes = {"text/plain"};
  json m = jsonrpc::to_acp_manifest(d);
  m["name"] = options_.agent_name;  // already a DNS label by configuration
  // What the company can do: its task and each employee it has hired — the
  // A2A card's skills. The employees are not ACP agents of their own: like
  // A2A messages, every run goes to the company, whose CEO asks them.
  json capabilities = json::array();
  for (const auto& c : jsonrpc::company_capabilities(company_.agents()))
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
  if (!parsed.ok) return fail(parsed.error.kind == JsonParseError::Kind::too_large ? 413 : 400, "invalid_input",
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
  {
    std::lock_guard lock(mu_);
    runs_[e->run.run_id] = e;
    order_.push_back(e->run.run_id);
    while (order_.size() > options_.max_runs) {
      runs_.erase(order_.front());
      order_.pop_front();
    }
  }
  return e;
}

std::shared_ptr<AcpService::Entry> AcpService::find(const std::string& run_id) {
  std::lock_guard lock(mu_);
  auto it = runs_.find(run_id);
  return it == runs_.end() ? nullptr : it->second;
}

AcpReply AcpService::start_run(const RunRequest& request) {
  auto e = create(request);
  auto id = company_.submit_in(request.session_id, request.input, [e](const msg::ProgressEvent& ev) { e->on_event(ev); });
  std::unique_lock lock(e->mu);
  e->submitted_locked(id);
  if (request.mode == "sync")
    e->cv.wait_for(lock, options_.sync_wait,
                   [&] { return is_terminal(e->run.status) || e->run.status == RunStatus::awaiting; });
  AcpReply r{request.mode == "async" ? 202 : 200, e->run.to_json(), {{"Run-ID", e->run.run_id}}};
  return r;
}

AcpService::RunStream AcpService::stream_run(const RunRequest& request, EventSink sink, std::function<void()> done) {
  auto e = create(request);
  uint64_t sink_id = 0;
  {
    std::lock_guard lock(e->mu);
    // run.created is already recorded; the stream starts with it.
    if (!sink(e->events.front())) {
      if (done) done();
    } else {
      sink_id = ++e->next_sink;
      e->sinks.push_back({sink_id, std::move(sink), std::move(done)});
    }
  }
  auto id = company_.submit_in(request.session_id, request.input, [e](const msg::ProgressEvent& ev) { e->on_event(ev); });
  std::lock_guard lock(e->mu);
  e->submitted_locked(id);
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
  if (ar == j.end() || !ar->is_object()) return error_reply(400, "invalid_input", "await_resume: is required (an object)");
  if (auto m = j.find("mode"); m != j.end() && !m->is_null() &&
                              (!m->is_string() || (*m != "sync" && *m != "async" && *m != "stream")))
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
