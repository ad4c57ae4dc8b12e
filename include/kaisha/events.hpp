// kaisha/events.hpp: the live events of a running company (hires, asks,
// model calls with their tokens and dollars, tool calls, a task's end), for
// a person or a program to watch as they happen (docs/events.md lists the
// kinds and their data).
//
// Threading: emit() is called on the company's threads, possibly several at
// once: an EventSink must be thread-safe and return quickly (queue or print,
// never wait on the company). Events of one task arrive in the order they
// happened. Ownership: the company shares the sink (CompanyOptions::events)
// and calls it until it is destroyed. Errors: a sink must not throw.
#pragma once

#include <string_view>

#include "runtime/company/progress_sink.hpp"
#include "runtime/messages/agent_messages.hpp"
#include "runtime/messages/event_kind.hpp"

namespace kaisha {

// One event: session, task, agent, kind, text, data (JSON), time (ms), and
// the tokens and dollars it accounts for.
using Event = msg::ProgressEvent;
using EventKind = msg::EventKind;

// Implement emit(); listening() may say false to spare building events.
using EventSink = company::ProgressSink;

// The kind's name as docs/events.md and `kaisha run --json` write it.
inline std::string_view event_kind_name(EventKind kind) { return msg::event_kind_name(kind); }

// True for the event that ends its task (it carries the task's totals).
inline bool ends_task(const Event& event) { return msg::ends_task(event); }

}  // namespace kaisha
