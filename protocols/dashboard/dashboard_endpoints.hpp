// The dashboard of `kaisha serve --http` and of a cluster's CEO node
// (`kaisha node --http`; docs/dashboard.md): its page at
// `/` and its files under /dashboard/, served without the bearer token
// (they hold no data: a browser loads them by navigating, which cannot send
// the header), and the JSON the page reads and acts through under
// /dashboard/api/, each under the server's rules like every protocol
// endpoint: the bearer token (401), Host and Origin (403).
//
//   GET  /dashboard/auth                      {"token_required": bool}, without the token
//   GET  /dashboard/api/info                  the session, its strategy, whether text is shown
//   GET  /dashboard/api/agents                the org chart (journal_views.hpp agents_json),
//                                             each agent's node from the cluster's placement
//   GET  /dashboard/api/cluster               nodes, heartbeat ages, placement, dropped frames
//                                             (DashboardCompany::cluster)
//   GET  /dashboard/api/tasks?q=&status=&limit=&offset=   tasks, newest first
//   POST /dashboard/api/tasks {"input": ...}  submits a task; 202 {"task": id}
//   POST /dashboard/api/tasks/ID/cancel       cancels it
//   POST /dashboard/api/tasks/ID/input {"text": ...}   answers the question it asks
//   POST /dashboard/api/budget/raise {"ledger": "expense"|"resource", "amount": > 0, "session"?}
//                                             raises that budget of the session (the served one's
//                                             by default; journaled); 200 {"budget"}
//   GET  /dashboard/api/tasks/ID/tree         its tree, from its strategy's builder
//   GET  /dashboard/api/tasks/ID/transcript?offset=&limit=   its journaled steps
//   GET  /dashboard/api/ledger?session=       ledger entries over time, and the budget now
//                                             (the session's, with a budget per session)
//
// A task the company runs but has not journaled yet is answered
// {"task": ID, "pending": true} by tree and transcript; one it does not know
// is 404.
//
// A POST must say Content-Type: application/json (415 otherwise): a form on
// another site cannot send that without the browser asking first, and the
// Origin check refuses it then. Every answer is Cache-Control: no-store.
// The journal is read on the request's own thread through a read-only
// connection, never through the company's writer.
#pragma once

#include <string>

#include "protocols/http/http_server.hpp"
#include "runtime/dashboard/dashboard_company.hpp"

namespace kaisha::dashboard {

struct DashboardOptions {
  std::string store_path;    // the journal file the company writes
  std::string host_session;  // the server's default session
  // Prompts and answers in transcripts: the config's
  // telemetry.traces.include_text, as for spans.
  bool include_text = false;
  std::string assets_dir;  // "": data_file("web/dashboard")
};

// Mounts the page and the API on `server` (before it starts). `company`
// must outlive the server. An error, with nothing mounted, when the page's files
// cannot be read.
Status mount_dashboard(protocols::HttpServer& server, DashboardCompany& company, DashboardOptions options);

}  // namespace kaisha::dashboard
