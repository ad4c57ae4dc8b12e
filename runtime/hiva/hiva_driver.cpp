#include "runtime/hiva/hiva_driver.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "runtime/core/fnv1a.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/environment/scripted_environment.hpp"
#include "runtime/hiva/graph/graph_diff.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/graph/repair_topology.hpp"
#include "runtime/hiva/replies/free_text.hpp"
#include "runtime/hiva/replies/parallelizability.hpp"
#include "runtime/hiva/replies/prompt_inputs.hpp"
#include "runtime/hiva/replies/reward_reply.hpp"
#include "runtime/hiva/replies/tagged_reply.hpp"
#include "runtime/hiva/replies/tool_code.hpp"
#include "runtime/hiva/replies/tool_validation.hpp"
#include "runtime/hiva/replies/topology_choice.hpp"
#include "runtime/hiva/routing/bandit_update.hpp"
#include "runtime/hiva/routing/kabb_router.hpp"
#include "runtime/hiva/routing/synergy.hpp"
#include "runtime/messages/ask_usage.hpp"
#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"
#include "runtime/random/stream_key.hpp"
#include "runtime/random/task_seed.hpp"

namespace kaisha::hiva {

using driver::AskAnswered;
using driver::CallId;
using driver::Effects;
using driver::HireAnswered;
using driver::ModelAnswered;
using driver::ToolRan;

namespace {

const std::string kSource(AgentGraph::kSource);
const std::string kAggregator(AgentGraph::kAggregator);

// Fig. 8 gives an agent's role as the first 300 characters of its prompt.
std::string role_of(const GraphAgent& a) {
  size_t chars = 0;
  for (size_t i = 0; i < a.prompt.size(); ++i) {
    const bool lead = (static_cast<unsigned char>(a.prompt[i]) & 0xC0) != 0x80;
    if (lead && ++chars > 300) return a.prompt.substr(0, i) + "...";
  }
  return a.prompt;
}

std::string gradient_text(const AgentFeedback& f) {
  std::string out;
  auto add = [&](const char* label, const std::string& text) {
    if (text.empty()) return;
    if (!out.empty()) out += "\n";
    out += std::string(label) + ": " + text;
  };
  add("SYSTEM_PROMPT_FEEDBACK", f.system_prompt);
  add("TOOL_FEEDBACK", f.tool);
  add("OVERALL_FEEDBACK", f.overall);
  return out;
}

TopologyOp op_of(TopologyChoice c) {
  switch (c) {
    case TopologyChoice::add_parallel:
      return TopologyOp::add_parallel;
    case TopologyChoice::add_serial:
      return TopologyOp::add_serial;
    case TopologyChoice::remove_successor:
      return TopologyOp::remove_successor;
    case TopologyChoice::connect_to_aggregator:
      return TopologyOp::connect_to_aggregator;
    case TopologyChoice::no_change:
      break;
  }
  return TopologyOp::no_change;
}

json edges_json(const std::vector<std::pair<std::string, std::string>>& edges) {
  json a = json::array();
  for (const auto& [from, to] : edges) a.push_back(json::array({from, to}));
  return a;
}

}  // namespace

std::string HivaDriver::hire_name(const std::string& agent) { return "hiva-" + agent; }

HivaDriver::HivaDriver(HivaSetup setup, msg::TaskRequest task, AgentGraph graph, int iteration,
                       std::vector<RoutingOutcome> outcomes)
    : setup_(std::move(setup)),
      task_(std::move(task)),
      graph_(std::move(graph)),
      iteration_(iteration),
      first_iteration_(iteration + 1),
      outcomes_(std::move(outcomes)) {
  const std::vector<double>& w = graph_.knowledge_weights();
  if (w.size() == 4) setup_.settings.knowledge.weights = {w[0], w[1], w[2], w[3]};
}

// ------------------------------------------------------------------ calls

bool HivaDriver::may_call(Effects& out) {
  const HivaSettings& s = setup_.settings;
  if (s.max_model_calls > 0 && model_calls_ >= s.max_model_calls) {
    event(out, event::cap_reached, "max_model_calls " + std::to_string(s.max_model_calls),
          json{{"cap", "max_model_calls"}, {"limit", s.max_model_calls}});
    finish(out, !answer_.empty(), answer_.empty() ? "HiVA reached max_model_calls before an answer" : answer_,
           "cap_reached");
    return false;
  }
  if (s.max_usd > 0 && usd_ >= s.max_usd) {
    event(out, event::cap_reached, "max_usd " + std::to_string(s.max_usd),
          json{{"cap", "max_usd"}, {"limit", s.max_usd}});
    finish(out, !answer_.empty(), answer_.empty() ? "HiVA reached max_usd before an answer" : answer_, "cap_reached");
    return false;
  }
  return true;
}

void HivaDriver::call_model(Effects& out, const std::string& purpose, HivaPrompt prompt, const Values& values,
                            const Sampling& sampling, Then then) {
  if (finished_ || !may_call(out)) return;
  const HivaPromptTemplates& t = setup_.prompts->at(prompt);
  Result<std::string> system = t.system.render(values);
  Result<std::string> user = system ? t.user.render(values) : Result<std::string>(system.error());
  if (!user) return finish(out, false, "HiVA's " + purpose + " prompt: " + user.error().message, "error");
  llm::ChatRequest request;
  if (!system->empty()) request.messages.push_back({llm::Role::system, std::move(system).value(), {}, "", ""});
  request.messages.push_back({llm::Role::user, std::move(user).value(), {}, "", ""});
  request.temperature = sampling.temperature;
  request.max_tokens = static_cast<int>(sampling.max_tokens);
  request.seed = static_cast<int64_t>(setup_.settings.seed);
  ++model_calls_;
  const CallId id =
      pending_.expect<ModelAnswered>([this, purpose, then = std::move(then)](const ModelAnswered& a, Effects& o) {
        usd_ += a.expense;
        tokens_in_ += a.response.usage.input_tokens;
        tokens_out_ += a.response.usage.output_tokens;
        Reply r{a.ok, a.ok ? a.response.message.content : "", a.ok ? "" : (a.error.empty() ? "no answer" : a.error)};
        if (a.ok)
          o.push_back(driver::journal_step(msg::EventKind::llm_response, json{{"call", purpose}, {"text", r.text}},
                                           a.response.usage.input_tokens, a.response.usage.output_tokens, a.expense));
        then(o, r);
      });
  out.push_back(driver::CallModel{id, purpose, std::move(request), false});
}

void HivaDriver::ask_agent(Effects& out, const std::string& agent, HivaPrompt prompt, const Values& values,
                           const Sampling& sampling, Then then) {
  (void)sampling;  // an agent's sampling is set at its hire (hire_then)
  if (finished_ || !may_call(out)) return;
  const HivaPromptTemplates& t = setup_.prompts->at(prompt);
  Result<std::string> system = t.system.render(values);
  Result<std::string> user = system ? t.user.render(values) : Result<std::string>(system.error());
  if (!user) return finish(out, false, "HiVA's agent prompt: " + user.error().message, "error");
  std::vector<llm::ChatMessage> messages;
  messages.push_back({llm::Role::system, system->empty() ? graph_.agent(agent).prompt : *system, {}, "", ""});
  messages.push_back({llm::Role::user, std::move(user).value(), {}, "", ""});
  ++model_calls_;
  const std::string job = "hiva i" + std::to_string(iteration_) + " " + agent;
  const CallId id =
      pending_.expect<AskAnswered>([this, agent, job, then = std::move(then)](const AskAnswered& a, Effects& o) {
        usd_ += a.expense;
        const llm::Usage used = msg::ask_usage(a.reply);
        tokens_in_ += used.input_tokens;
        tokens_out_ += used.output_tokens;
        const bool ok = a.ok && a.reply.ok;
        const std::string error = !a.ok ? (a.error.empty() ? "no answer" : a.error) : a.reply.error;
        // With a job the agent journals only its request: its answer and what
        // it cost are journaled here, so the iteration's tree counts them.
        if (ok)
          o.push_back(driver::journal_step(msg::EventKind::llm_response, json{{"job", job}, {"text", a.reply.output}},
                                           a.reply.usage.input_tokens, a.reply.usage.output_tokens, a.expense,
                                           hire_name(agent)));
        else
          o.push_back(driver::journal_step(a.refused ? msg::EventKind::refusal : msg::EventKind::error,
                                           json{{"job", job}, {"error", error}}, 0, 0, a.expense, hire_name(agent)));
        then(o, Reply{ok, ok ? a.reply.output : "", ok ? "" : error});
      });
  out.push_back(driver::Ask{id, hire_name(agent), "", job, false, std::move(messages), {}});
}

void HivaDriver::run_tool(Effects& out, const std::string& tool, const json& args,
                          std::function<void(Effects&, const company::ToolResult&)> then) {
  if (finished_) return;
  const CallId id =
      pending_.expect<ToolRan>([then = std::move(then)](const ToolRan& t, Effects& o) { then(o, t.result); });
  driver::RunTool r;
  r.id = id;
  r.tool = tool;
  r.arguments = args.dump();
  out.push_back(std::move(r));
}

void HivaDriver::problem(Effects& out, const std::string& call, const std::optional<std::string>& found,
                         const Reply& reply) {
  if (!found && reply.ok) return;
  ++problems_;
  std::string text = call + ": ";
  if (!reply.ok) text += "the call failed (" + reply.error + "); ";
  text += found.value_or("the default was used");
  event(out, event::problem, text, json{{"call", call}, {"problem", text}});
}

void HivaDriver::event(Effects& out, const char* name, const std::string& text, json data, bool journaled) {
  data["iteration"] = iteration_;
  driver::add_strategy_event(out, kHivaStrategy, name, text, std::move(data), journaled, "HiVA");
}

// ---------------------------------------------------------------- forward

Effects HivaDriver::start() {
  Effects out;
  iterations_left_ = setup_.settings.iterations;
  if (graph_.has_cycle()) {
    finish(out, false, "HiVA's graph has a cycle; it cannot run", "error");
    return out;
  }
  begin_iteration(out);
  return out;
}

Effects HivaDriver::on(const driver::Outcome& o) {
  Effects out;
  if (finished_) return out;
  pending_.deliver(o, out);
  return out;
}

Effects HivaDriver::cancel(const std::string& why) {
  Effects out;
  finish(out, false, why, "canceled");
  return out;
}

std::vector<std::string> HivaDriver::texts_to_embed() const {
  std::vector<std::string> texts;
  if (setup_.embed) return texts;
  auto need = [&](const std::string& text) {
    if (!vectors_.count(text) && std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(text);
  };
  if (!task_profile_) need(task_.input);
  for (const GraphAgent& a : graph_.agents()) {
    for (const TaskRecord& past : a.history) need(past.task);
    if (setup_.profiles && setup_.profiles->has(a.prompt, a.tool_description)) continue;
    need(a.prompt);
    if (!a.tool_description.empty()) need(a.tool_description);
  }
  return texts;
}

const Embedding& HivaDriver::vector_of(const std::string& text) {
  auto it = vectors_.find(text);
  if (it != vectors_.end()) return it->second;
  // In process (a provider's vectors are all fetched before the pass).
  return vectors_[text] = setup_.embed ? unit(setup_.embed(text)) : Embedding{};
}

void HivaDriver::embed_then(Effects& out, std::function<void(Effects&)> then) {
  std::vector<std::string> texts = texts_to_embed();
  if (texts.empty()) return then(out);
  run_tool(out, kEmbedTool, json{{"texts", texts}},
           [this, texts, then = std::move(then)](Effects& o, const company::ToolResult& r) {
             const json* vectors =
                 r.ok && r.output.is_object() && r.output.contains("vectors") ? &r.output["vectors"] : nullptr;
             const bool fits = vectors && vectors->is_array() && vectors->size() == texts.size();
             for (size_t i = 0; i < texts.size(); ++i) {
               Embedding v;
               if (fits && (*vectors)[i].is_array()) {
                 for (const json& x : (*vectors)[i])
                   if (x.is_number()) v.push_back(x.get<float>());
               }
               vectors_[texts[i]] = unit(std::move(v));
             }
             if (!fits) {
               ++problems_;
               const std::string text = "embedding " + std::to_string(texts.size()) + " texts failed (" +
                                        (r.ok ? "the answer holds no vectors" : r.message) +
                                        "); routing goes on without their similarity";
               event(o, event::problem, text, json{{"call", "embed"}, {"problem", text}});
             }
             then(o);
           });
}

Embed HivaDriver::embedder() const {
  if (setup_.embed) return setup_.embed;
  return [this](const std::string& text) {
    auto it = vectors_.find(text);
    return it == vectors_.end() ? Embedding{} : it->second;
  };
}

void HivaDriver::begin_iteration(Effects& out) {
  if (!texts_to_embed().empty()) return embed_then(out, [this](Effects& o) { begin_iteration(o); });
  if (!task_profile_) {
    auto profile = task_profile_of(task_.input, *setup_.knowledge, embedder());
    if (!profile) return finish(out, false, "HiVA's knowledge graph: " + profile.error().message, "error");
    task_profile_ = std::move(profile).value();
  }
  ++iteration_;
  graph_.reset_routed();
  iteration_start_ = graph_;
  dist_.clear();
  costs_.clear();
  episode_answers_.clear();
  episode_observations_.clear();
  pass_input_ = task_.input;
  start_pass(out);
}

void HivaDriver::start_pass(Effects& out) {
  outputs_.clear();
  chosen_.clear();
  instructing_.clear();
  auto plan = ForwardSchedule::plan(graph_, pass_input_);
  if (!plan) return finish(out, false, "HiVA's graph: " + plan.error().message, "error");
  instructed_by_.clear();
  position_.clear();
  const auto order = graph_.topological_order();  // there is one: the plan was made
  for (size_t i = 0; i < order->size(); ++i) position_[(*order)[i]] = i;
  schedule_ = std::move(plan).value();
  pump_forward(out);
}

void HivaDriver::pump_forward(Effects& out) {
  // Starting an agent can settle another at once (a routing with no call):
  // the outer call goes round again instead of starting agents twice.
  if (pumping_) {
    repump_ = true;
    return;
  }
  pumping_ = true;
  do {
    repump_ = false;
    if (finished_ || !schedule_) break;
    for (const std::string& a : schedule_->ready()) {
      schedule_->started(a);
      hire_then(out, a, [this, a](Effects& o) {
        if (a == kAggregator)
          aggregate(o);
        else
          step_agent(o, a);
      });
      if (finished_) break;
    }
  } while (repump_ && !finished_);
  pumping_ = false;
  if (!finished_ && schedule_ && schedule_->finished()) forward_done(out);
}

void HivaDriver::hire_then(Effects& out, const std::string& agent, std::function<void(Effects&)> then) {
  auto it = hired_.find(agent);
  if (it != hired_.end() && it->second) return then(out);
  waiting_hire_[agent].push_back(std::move(then));
  if (it != hired_.end()) return;  // the hire is out
  hired_[agent] = false;
  const GraphAgent& a = graph_.agent(agent);
  msg::AgentSpec spec;
  spec.name = hire_name(agent);
  spec.base_model = setup_.agent_cost.name;
  spec.model_ref = setup_.agent_cost.model_ref;
  spec.type = setup_.agent_cost.type;
  spec.system_prompt = a.prompt;
  spec.description = "HiVA graph agent: " + (a.role.empty() ? agent : a.role);
  spec.costs = economy::spec_costs_json(setup_.agent_cost);
  // An agent samples as its calls are set to (the aggregator's, the other
  // agents' steps) with HiVA's seed, not at the employee defaults.
  spec.temperature = (agent == kAggregator ? setup_.settings.aggregation : setup_.settings.agent).temperature;
  spec.seed = static_cast<int64_t>(setup_.settings.seed);
  const CallId id = pending_.expect<HireAnswered>([this, agent](const HireAnswered& h, Effects& o) {
    if (!h.ok) {
      o.push_back(driver::journal_step(msg::EventKind::refusal, json{{"hire", hire_name(agent)}, {"error", h.error}}));
      return finish(o, false, "Could not hire HiVA's agent " + hire_name(agent) + ": " + h.error, "hire_refused");
    }
    hired_[agent] = true;
    auto waiting = std::move(waiting_hire_[agent]);
    waiting_hire_.erase(agent);
    for (auto& w : waiting) {
      if (finished_) return;
      w(o);
    }
  });
  out.push_back(driver::Hire{id, std::move(spec), setup_.agent_cost});
}

void HivaDriver::step_agent(Effects& out, const std::string& agent) {
  const GraphAgent& a = graph_.agent(agent);
  const std::string instruction = schedule_->instruction(agent);
  auto ask = [this, agent, instruction](Effects& o, bool failed, const std::string& result) {
    Values v{{"system_prompt", graph_.agent(agent).prompt}, {"instruction", instruction}};
    v[failed ? "tool_error" : "tool_result"] = result;
    ask_agent(o, agent, failed ? HivaPrompt::agent_step_tool_failed : HivaPrompt::agent_step, v, setup_.settings.agent,
              [this, agent](Effects& o2, const Reply& r) { agent_answered(o2, agent, r); });
  };
  if (a.tool_code.empty()) return ask(out, false, "(this agent has no tool)");
  run_tool(out, kAgentTool, json{{"code", a.tool_code}, {"input", instruction}},
           [ask](Effects& o, const company::ToolResult& r) {
             const std::string text = r.output.is_string() ? r.output.get<std::string>()
                                      : r.output.is_null() ? r.message
                                                           : r.output.dump();
             ask(o, !r.ok, r.ok ? text : r.message);
           });
}

void HivaDriver::agent_answered(Effects& out, const std::string& agent, const Reply& r) {
  auto text = parse_free_text(r.text, agent);
  problem(out, "agent " + agent, text.problem, r);
  // A failed agent still routes, with its failure as its output (item 23).
  outputs_[agent] = r.ok ? text.value : "(agent " + agent + " failed: " + r.error + ")";
  route(out, agent);
}

double HivaDriver::dist_of(const std::string& agent) {
  auto it = dist_.find(agent);
  if (it != dist_.end()) return it->second;
  const GraphAgent& a = graph_.agent(agent);
  // A profile built without a vector (a failed embedding) is not kept.
  auto failed = [this](const std::string& text) {
    auto it = vectors_.find(text);
    return !setup_.embed && it != vectors_.end() && it->second.empty();
  };
  const bool keep = setup_.profiles && !failed(a.prompt) && !failed(a.tool_description);
  const AgentProfile p = keep ? setup_.profiles->get(a.prompt, a.tool_description, embedder())
                              : profile_of(a.prompt, a.tool_description, embedder());
  // Ψ3 reads the agent's record on tasks like this one, by the same embedder.
  std::vector<PastTask> history;
  for (const TaskRecord& past : a.history)
    history.push_back(PastTask{cosine(vector_of(past.task), task_profile_->embedding), past.success});
  auto cost = knowledge_cost(p, *task_profile_, history, *setup_.knowledge, setup_.settings.knowledge);
  const double d = cost ? cost->dist : 0.0;
  dist_[agent] = d;
  if (cost) costs_[agent] = *cost;
  return d;
}

void HivaDriver::route(Effects& out, const std::string& agent) {
  const std::vector<std::string> successors = graph_.successors(agent);
  std::vector<Candidate> candidates;
  for (const std::string& s : successors) {
    const GraphAgent& a = graph_.agent(s);
    candidates.push_back(Candidate{s, a.alpha, a.beta, dist_of(s)});
  }
  std::vector<std::string> chosen;
  json scores = json::array();
  if (!candidates.empty()) {
    KabbSettings k = setup_.settings.routing;
    k.enabled = setup_.settings.use_kabb;
    SynergyLookup synergy = [this](const std::string& from, const std::string& to) -> std::optional<double> {
      const GraphEdge* e = graph_.find_edge(from, to);
      return e ? std::optional<double>(e->synergy) : std::nullopt;
    };
    RoutingDecision d{random::TaskSeed("hiva", setup_.settings.seed), iteration_, agent};
    auto selection = select_successors(candidates, {agent}, synergy, k, d);
    if (!selection) return finish(out, false, "HiVA's routing: " + selection.error().message, "error");
    chosen = selection->chosen;
    for (const Scored& s : selection->scores)
      scores.push_back({{"agent", s.id}, {"theta", s.theta}, {"dist", s.dist}, {"zeta", s.zeta}, {"score", s.score}});
  }
  for (const std::string& c : chosen)
    if (GraphEdge* e = graph_.find_edge(agent, c)) ++e->routed;
  chosen_[agent] = chosen;
  std::string said = agent + " -> ";
  for (size_t i = 0; i < chosen.size(); ++i) said += (i ? ", " : "") + chosen[i];
  event(out, event::routed, said, json{{"agent", agent}, {"chosen", chosen}, {"scores", scores}});

  int calls = 0;
  for (const std::string& c : chosen) calls += c != kAggregator;
  instructing_[agent] = calls;
  if (calls == 0) {
    schedule_->ran(agent, chosen);
    return pump_forward(out);
  }
  const std::string fallback = schedule_->instruction(agent) + "\n\n" + outputs_[agent];
  for (const std::string& c : chosen) {
    if (c == kAggregator) continue;
    Values v{{"instruction", schedule_->instruction(agent)},
             {"tool_result", outputs_[agent]},
             {"successor_system_prompt", graph_.agent(c).prompt},
             {"successor_id", c}};
    call_model(out, "instruction " + agent + "->" + c, HivaPrompt::instruction, v, setup_.settings.instruction,
               [this, agent, c, fallback](Effects& o, const Reply& r) {
                 auto text = parse_instruction(r.text, fallback);
                 problem(o, "instruction " + agent + "->" + c, text.problem, r);
                 // The last writer wins (§5 [CODE]), counted in topological
                 // order as the reference code runs agents, not in the order
                 // the replies arrive.
                 std::string& writer = instructed_by_[c];
                 if (writer.empty() || position_.at(agent) > position_.at(writer)) {
                   schedule_->instruct(c, text.value);
                   writer = agent;
                 }
                 if (--instructing_[agent] > 0) return;
                 schedule_->ran(agent, chosen_[agent]);
                 pump_forward(o);
               });
    if (finished_) return;
  }
}

void HivaDriver::aggregate(Effects& out) {
  // In topological order, not the order the agents happened to finish in.
  std::vector<std::string> routed = schedule_->routed_from(kAggregator);
  std::sort(routed.begin(), routed.end(),
            [this](const std::string& x, const std::string& y) { return position_.at(x) < position_.at(y); });
  std::vector<AgentOutput> inputs;
  for (const std::string& from : routed) {
    const GraphAgent& a = graph_.agent(from);
    inputs.push_back(AgentOutput{from, a.role, outputs_[from]});
  }
  Values v{{"system_prompt", graph_.agent(kAggregator).prompt},
           {"instruction", pass_input_},
           {"agent_outputs", format_agent_outputs(inputs)}};
  ask_agent(out, kAggregator, HivaPrompt::aggregation, v, setup_.settings.aggregation,
            [this](Effects& o, const Reply& r) {
              auto text = parse_free_text(r.text, kAggregator);
              problem(o, "aggregation", text.problem, r);
              outputs_[kAggregator] = r.ok ? text.value : "";
              schedule_->ran(kAggregator, {});
              pump_forward(o);
            });
}

void HivaDriver::forward_done(Effects& out) {
  if (!outputs_.count(kAggregator))
    // Every agent routes to at least one successor and repair keeps a path
    // to the aggregator, so this is a broken graph, not a bad reply.
    return finish(out, false, "HiVA's forward pass did not reach the aggregator", "error");
  answer_ = outputs_[kAggregator];
  // The agents that ran, in topological order (the backward pass reverses it).
  executed_.clear();
  auto order = graph_.topological_order();
  const auto& ran = schedule_->executed();
  for (const std::string& a : order ? *order : ran)
    if (std::find(ran.begin(), ran.end(), a) != ran.end()) executed_.push_back(a);
  std::vector<std::pair<std::string, std::string>> routed;
  for (const GraphEdge& e : graph_.edges())
    if (e.routed > 0) routed.emplace_back(e.from, e.to);
  done_graph_ = to_json(graph_);  // the graph that ran; the task's result when it ends here
  event(out, event::forward_pass,
        std::to_string(executed_.size()) + " of " + std::to_string(graph_.agents().size()) + " agents ran",
        json{{"graph", *done_graph_},
             {"executed", executed_},
             {"skipped", schedule_->skipped()},
             {"routed", edges_json(routed)},
             {"answer", answer_}});
  schedule_.reset();
  if (iterations_left_ <= 0) return finish(out, !answer_.empty(), answer_, "done");
  loss(out);
}

// ------------------------------------------------------------------- loss

void HivaDriver::loss(Effects& out) {
  auto item = setup_.environment_items.find(task_.input);
  if (setup_.settings.use_environment && item != setup_.environment_items.end()) {
    // An interactive item judges the whole episode: its answers so far go
    // along, and while the episode continues the graph answers the
    // environment's reply with another forward pass (same iteration).
    std::vector<std::string> answers = episode_answers_;
    answers.push_back(answer_);
    return run_tool(out, kEnvironmentTool, json{{"item", item->second}, {"answer", answer_}, {"answers", answers}},
                    [this](Effects& o, const company::ToolResult& r) {
                      std::optional<bool> success;
                      std::string text = r.message;
                      bool continues = false;
                      if (r.output.is_object()) {
                        if (r.output.contains("success") && r.output["success"].is_boolean())
                          success = r.output["success"].get<bool>();
                        text = r.output.value("text", r.message);
                        continues = r.ok && r.output.value("continues", false);
                      }
                      if (!r.ok) text = "The environment could not check the answer: " + r.message;
                      if (continues && episode_answers_.size() + 1 < kMaxEpisodeTurns) {
                        episode_answers_.push_back(answer_);
                        episode_observations_.push_back(text);
                        pass_input_ = episode_so_far(task_.input, episode_answers_, episode_observations_);
                        return start_pass(o);
                      }
                      if (continues) {
                        text += " (the episode was stopped after " + std::to_string(kMaxEpisodeTurns) + " turns)";
                        success = false;
                      }
                      if (!episode_answers_.empty()) {
                        std::vector<std::string> answers = episode_answers_;
                        answers.push_back(answer_);
                        std::vector<std::string> observations = episode_observations_;
                        observations.push_back(text);
                        text = "An episode of " + std::to_string(answers.size()) + " turns, which ended: " + text +
                               "\n\n" + episode_so_far(task_.input, answers, observations);
                      }
                      on_loss(o, std::move(text), success);
                    });
  }
  // w/o-Env, or a task no environment knows: the aggregator critiques itself.
  call_model(out, "self-critique", HivaPrompt::self_critique, {{"instruction", task_.input}, {"final_result", answer_}},
             setup_.settings.feedback, [this](Effects& o, const Reply& r) {
               auto fb = parse_feedback(r.text);
               problem(o, "self-critique", fb.problem, r);
               on_loss(o, fb.value, std::nullopt);
             });
}

void HivaDriver::on_loss(Effects& out, std::string text, std::optional<bool> success) {
  loss_ = std::move(text);
  success_ = success;
  json data{{"feedback", loss_}};
  data["success"] = success ? json(*success) : json(nullptr);
  event(out, event::loss, utf8::one_line(loss_, 200), std::move(data));
  Values v{{"aggregator_id", kAggregator},
           {"instruction", task_.input},
           {"environment_feedback", loss_},
           {"final_result", utf8::shorten(answer_, 200)}};
  feedback_.clear();
  asked_feedback_.clear();
  rewards_.clear();
  decisions_.clear();
  new_agents_.clear();
  work_ = 0;
  call_model(out, "system feedback", HivaPrompt::system_feedback, v, setup_.settings.feedback,
             [this](Effects& o, const Reply& r) {
               auto fb = parse_feedback(r.text);
               problem(o, "system feedback", fb.problem, r);
               AgentFeedback g;
               g.system_prompt = fb.value;
               g.overall = fb.value;
               asked_feedback_.insert(kAggregator);
               gradient_known(o, kAggregator, std::move(g));
             });
}

// --------------------------------------------------------------- backward

void HivaDriver::gradient_known(Effects& out, const std::string& agent, AgentFeedback fb) {
  graph_.agent(agent).last_gradient = gradient_text(fb);
  event(out, event::gradient, agent + ": " + utf8::one_line(fb.overall, 160),
        json{{"agent", agent},
             {"system_prompt_feedback", fb.system_prompt},
             {"tool_feedback", fb.tool},
             {"overall_feedback", fb.overall}});
  feedback_[agent] = std::move(fb);
  work_ += 3;
  reward(out, agent);
  semantic(out, agent);  // then its topology (semantic_done)
  pump_backward(out);
}

void HivaDriver::pump_backward(Effects& out) {
  if (finished_) return;
  // Reverse topological order: an agent is asked once every successor that
  // ran has its gradient.
  for (auto it = executed_.rbegin(); it != executed_.rend(); ++it) {
    const std::string& a = *it;
    if (asked_feedback_.count(a)) continue;
    std::string combined;
    bool ready = true;
    for (const std::string& s : graph_.successors(a)) {
      if (std::find(executed_.begin(), executed_.end(), s) == executed_.end()) continue;
      auto f = feedback_.find(s);
      if (f == feedback_.end()) {
        ready = false;
        break;
      }
      combined += (combined.empty() ? "" : "\n\n") + std::string("[") + s + "] " + gradient_text(f->second);
    }
    if (!ready) continue;
    asked_feedback_.insert(a);
    const GraphAgent& ga = graph_.agent(a);
    Values v{{"agent_role", role_of(ga)}, {"agent_output", outputs_[a]}, {"successor_feedback", combined}};
    call_model(out, "agent feedback " + a, HivaPrompt::agent_feedback, v, setup_.settings.feedback,
               [this, a](Effects& o, const Reply& r) {
                 auto fb = parse_agent_feedback(r.text);
                 problem(o, "agent feedback " + a, fb.problem, r);
                 gradient_known(o, a, fb.value);
               });
    if (finished_) return;
  }
}

void HivaDriver::reward(Effects& out, const std::string& agent) {
  const GraphAgent& a = graph_.agent(agent);
  call_model(out, "reward " + agent, HivaPrompt::reward, {{"agent_role", role_of(a)}, {"gradient", a.last_gradient}},
             setup_.settings.feedback, [this, agent](Effects& o, const Reply& r) {
               auto rw = parse_reward(r.text);
               problem(o, "reward " + agent, rw.problem, r);
               rewards_[agent] = rw.value.value;
               event(o, event::reward, agent + ": r = " + std::to_string(rw.value.value),
                     json{{"agent", agent},
                          {"reward", rw.value.value},
                          {"label", rw.value.label ? std::string(to_string(*rw.value.label)) : ""}});
               work_done(o);
             });
}

void HivaDriver::semantic(Effects& out, const std::string& agent) {
  if (!setup_.settings.use_semantic) return semantic_done(out, agent);
  const AgentFeedback& fb = feedback_[agent];
  // §7.3's weighting: the prompt with probability prompt_weight, else the
  // tool; the aggregator and an agent with no tool feedback rewrite the prompt.
  random::RandomStream rs(random::TaskSeed("hiva", setup_.settings.seed),
                          random::StreamKey("hiva.semantic", iteration_, fnv1a_64(agent)));
  const bool prompt = agent == kAggregator || fb.tool.empty() || random::uniform01(rs) < setup_.settings.prompt_weight;
  if (!prompt) return update_tool(out, agent);
  const GraphAgent& a = graph_.agent(agent);
  const std::string feedback = fb.system_prompt.empty() ? fb.overall : fb.system_prompt;
  call_model(out, "prompt update " + agent, HivaPrompt::prompt_update,
             {{"system_prompt", a.prompt}, {"feedback", feedback}}, setup_.settings.feedback,
             [this, agent](Effects& o, const Reply& r) {
               auto improved = parse_improved_variable(r.text);
               problem(o, "prompt update " + agent, improved.problem, r);
               if (improved.value) {
                 GraphAgent& g = graph_.agent(agent);
                 g.prompt = *improved.value;
                 ++g.prompt_version;
                 event(o, event::prompt_updated, agent + ": prompt v" + std::to_string(g.prompt_version),
                       json{{"agent", agent}, {"version", g.prompt_version}, {"prompt", g.prompt}});
               }
               semantic_done(o, agent);
             });
}

void HivaDriver::update_tool(Effects& out, const std::string& agent) {
  const GraphAgent& a = graph_.agent(agent);
  const AgentFeedback& fb = feedback_[agent];
  const bool fresh = a.tool_code.empty();
  Values v = fresh ? Values{{"tool_description", fb.tool}, {"tool_examples", "(none)"}}
                   : Values{{"tool_source", a.tool_code}, {"tool_feedback", fb.tool}};
  const std::string description = fresh ? fb.tool : a.tool_description;
  auto reject = [this, agent](Effects& o, const std::string& why) {
    event(o, event::tool_rejected, agent + ": " + utf8::one_line(why, 160), json{{"agent", agent}, {"error", why}});
    semantic_done(o, agent);
  };
  call_model(
      out, "tool " + agent, fresh ? HivaPrompt::tool_synthesis : HivaPrompt::tool_refinement, v, setup_.settings.code,
      [this, agent, description, reject](Effects& o, const Reply& r) {
        auto code = parse_tool_code(r.text);
        problem(o, "tool " + agent, code.problem, r);
        if (!r.ok || code.value.empty()) return reject(o, "no code came back");
        if (Status s = validate_tool_source(code.value); !s.ok()) return reject(o, s.error().message);
        const std::string source = code.value;
        json forbidden = json::array();
        for (std::string_view m : forbidden_modules()) forbidden.push_back(std::string(m));
        run_tool(o, kValidateTool, json{{"code", source}, {"forbidden_modules", forbidden}},
                 [this, agent, description, source, reject](Effects& o2, const company::ToolResult& t) {
                   if (!t.ok) return reject(o2, t.message);
                   GraphAgent& g = graph_.agent(agent);
                   const std::string previous = g.tool_code.empty() ? "" : company::tool_code_hash(g.tool_code);
                   // The new version is registered and the one before it kept.
                   const company::ToolVersion& v = register_tool_version(g, source);
                   g.tool_description = description;
                   json data{{"agent", agent}, {"version", v.version}, {"code", source}, {"code_hash", v.code_hash}};
                   if (!previous.empty()) data["previous_hash"] = previous;
                   event(o2, event::tool_updated, agent + ": tool v" + std::to_string(g.tool_version), std::move(data));
                   semantic_done(o2, agent);
                 });
      });
}

// Algorithm 1 runs f_P, then f_G, per agent: the topology step (its
// parallelizability analysis, decision and new agent's prompt) starts once
// the agent's prompt or tool is rewritten, so it reads the rewritten agent
// whatever order the answers come back in.
void HivaDriver::semantic_done(Effects& out, const std::string& agent) {
  topology(out, agent);
  work_done(out);
}

void HivaDriver::topology(Effects& out, const std::string& agent) {
  if (!setup_.settings.use_topology || agent == kAggregator) return work_done(out);
  // The role as the semantic update left it (it is done by now), kept for the
  // decision and the new agent's prompt asked after this call.
  const std::string role = role_of(graph_.agent(agent));
  call_model(out, "parallelizability " + agent, HivaPrompt::parallelizability,
             {{"agent_role", role}, {"instruction", task_.input}}, setup_.settings.feedback,
             [this, agent, role](Effects& o, const Reply& r) {
               auto p = parse_parallelizability(r.text);
               problem(o, "parallelizability " + agent, p.problem, r);
               decide(o, agent, role, p.value.score, describe(p.value));
             });
}

void HivaDriver::decide(Effects& out, const std::string& agent, const std::string& role, double parallelizability,
                        const std::string& why) {
  const GraphAgent& a = graph_.agent(agent);
  std::vector<SuccessorInfo> successors;
  for (const std::string& s : graph_.successors(agent)) {
    const GraphEdge* e = graph_.find_edge(agent, s);
    successors.push_back(
        SuccessorInfo{s, graph_.agent(s).role, uint64_t(e ? e->routed : 0), uint64_t(e ? e->uses : 0)});
  }
  Values v{{"agent_role", role},
           {"feedback", a.last_gradient},
           {"successor_count", std::to_string(successors.size())},
           {"successors", format_successors(successors)},
           {"max_successors", std::to_string(AgentGraph::kMaxSuccessors)},
           {"parallelizability", why}};
  call_model(out, "topology " + agent, HivaPrompt::topology_decision, v, setup_.settings.feedback,
             [this, agent, role, parallelizability](Effects& o, const Reply& r) {
               auto d = parse_topology_decision(r.text);
               problem(o, "topology " + agent, d.problem, r);
               TopologyDecision decision{op_of(d.value.choice), d.value.argument};
               if (d.value.choice == TopologyChoice::remove_successor && d.value.target == RemoveTarget::index)
                 decision.argument = std::to_string(d.value.target_index);
               if (d.value.choice == TopologyChoice::remove_successor && d.value.target == RemoveTarget::least_visited)
                 decision.argument = "least_visited";
               if (decision.op == TopologyOp::add_parallel &&
                   parallelizability < setup_.settings.parallelizability_threshold) {
                 event(o, event::topology_edit,
                       agent + ": ADD_PARALLEL not applied (parallelizability below the threshold)",
                       json{{"agent", agent},
                            {"op", "ADD_PARALLEL"},
                            {"argument", decision.argument},
                            {"applied", false},
                            {"reason", "parallelizability " + std::to_string(parallelizability) + " < " +
                                           std::to_string(setup_.settings.parallelizability_threshold)}});
                 return work_done(o);
               }
               decisions_[agent] = decision;
               if (decision.op != TopologyOp::add_parallel && decision.op != TopologyOp::add_serial)
                 return work_done(o);
               Values nv{{"description", decision.argument},
                         {"predecessor_role", role},
                         {"predecessor_feedback", graph_.agent(agent).last_gradient}};
               call_model(o, "new agent for " + agent, HivaPrompt::new_agent_prompt, nv, setup_.settings.feedback,
                          [this, agent, description = decision.argument](Effects& o2, const Reply& r2) {
                            auto p = parse_new_agent_prompt(r2.text, "You are " + description + ".");
                            problem(o2, "new agent for " + agent, p.problem, r2);
                            GraphAgent n;
                            n.role = description;
                            n.prompt = p.value;
                            n.tool_version = 0;
                            n.created = iteration_;
                            n.last_update = iteration_;
                            new_agents_[agent] = std::move(n);
                            work_done(o2);
                          });
             });
}

void HivaDriver::work_done(Effects& out) {
  if (finished_) return;
  --work_;
  if (work_ > 0 || feedback_.size() < executed_.size()) return;
  update(out);
}

// ---------------------------------------------------------------- updates

void HivaDriver::update(Effects& out) {
  const AgentGraph before = graph_;
  const BanditSettings& b = setup_.settings.bandit;
  json rewards = json::object(), posteriors = json::object();
  auto ran = [this](const std::string& a) {
    return std::find(executed_.begin(), executed_.end(), a) != executed_.end();
  };
  for (const GraphAgent& a0 : before.agents()) {
    GraphAgent& a = graph_.agent(a0.id);
    const bool selected = ran(a.id);
    const double r = rewards_.count(a.id) ? rewards_[a.id] : 1.0;
    const double synergy = 1.0 - std::clamp(dist_.count(a.id) ? dist_[a.id] : 0.0, 0.0, 1.0);
    auto p = update_arm(Posterior{a.alpha, a.beta, a.last_update}, ArmFeedback{selected, r, synergy}, iteration_, b);
    if (p) {
      a.alpha = p->alpha;
      a.beta = p->beta;
      a.last_update = static_cast<int>(p->updated_at);
    }
    if (selected) {
      ++a.visits;
      rewards[a.id] = r;
      remember_task(a, task_.input, r);  // for Ψ3 on later tasks
      if (auto c = costs_.find(a.id); c != costs_.end())
        outcomes_.push_back(RoutingOutcome{c->second.depth, c->second.psi, r});
    }
    posteriors[a.id] = json::array({a.alpha, a.beta});
  }
  if (outcomes_.size() > kMaxRoutingOutcomes) outcomes_.erase(outcomes_.begin(), outcomes_.end() - kMaxRoutingOutcomes);
  for (const GraphEdge& e0 : before.edges()) {
    GraphEdge* e = graph_.find_edge(e0.from, e0.to);
    const double r = rewards_.count(e->to) ? rewards_[e->to] : (success_ ? double(*success_) : 1.0);
    // An edge keeps no iteration of its own: every edge is updated every
    // iteration (a new one was made by the previous update), so Δt is 1.
    auto next = update_edge(EdgeState{e->synergy, Posterior{e->alpha, e->beta, iteration_ - 1}},
                            EdgeFeedback{double(e->routed), r}, iteration_, b);
    if (next) {
      e->synergy = next->synergy;
      e->alpha = next->posterior.alpha;
      e->beta = next->posterior.beta;
    }
    if (e->routed > 0) {
      ++e->uses;
      e->successes += r >= 0.5;
    }
  }

  // f_G: the decisions in reverse topological order of their agents.
  std::vector<EditResult> edits;
  for (auto it = executed_.rbegin(); it != executed_.rend(); ++it) {
    auto d = decisions_.find(*it);
    if (d == decisions_.end()) continue;
    GraphAgent fresh = new_agents_.count(*it) ? new_agents_[*it] : GraphAgent{};
    EditResult r = apply_edit(graph_, *it, d->second, std::move(fresh));
    json data{{"agent", *it},
              {"op", std::string(to_string(r.op))},
              {"argument", d->second.argument},
              {"applied", r.applied},
              {"added_agents", r.added_agents},
              {"removed_agents", r.removed_agents},
              {"added_edges", edges_json(r.added_edges)},
              {"removed_edges", edges_json(r.removed_edges)}};
    if (!r.applied) data["reason"] = r.reason;
    event(out, event::topology_edit,
          *it + ": " + std::string(to_string(r.op)) + (r.applied ? "" : " not applied (" + r.reason + ")"),
          std::move(data));
    if (r.applied) edits.push_back(std::move(r));
  }
  RepairReport repair = repair_topology(graph_, edits, setup_.settings.prune_below);
  if (repair.changed()) {
    json reverted = json::array();
    for (size_t i : repair.reverted_edits) reverted.push_back(edits.at(i).agent);
    event(out, event::repair, "repaired the topology",
          json{{"reverted_edits_by", reverted},
               {"broken_edges", edges_json(repair.broken_edges)},
               {"pruned_agents", repair.pruned_agents},
               {"pruned_edges", edges_json(repair.pruned_edges)},
               {"reconnected", repair.reconnected}});
  }
  // Δs_t is against the graph the iteration began with: the semantic updates
  // were made to graph_ during the backward pass.
  const GraphDiff diff = diff_graphs(*iteration_start_, graph_);
  json success = success_ ? json(*success_) : json(nullptr);
  json log{{"iteration", iteration_},
           {"diff", to_json(diff)},
           {"rewards", rewards},
           {"posteriors", posteriors},
           {"answer", answer_},
           {"success", success},
           {"loss", loss_},
           {"model_calls", model_calls_},
           {"tokens_in", tokens_in_},
           {"tokens_out", tokens_out_},
           {"usd", usd_},
           {"agents", graph_.agents().size()},
           {"edges", graph_.edges().size()}};
  iterations_log_.push_back(log);
  json data = log;
  done_graph_ = to_json(graph_);  // the iteration's graph; the task's result when it ends here
  data["graph"] = *done_graph_;
  event(out, event::iteration, "iteration " + std::to_string(iteration_) + " done", std::move(data));
  if (!setup_.settings.save_as.empty())
    out.push_back(driver::SaveState{graph_state_key(setup_.settings.save_as),
                                    json{{"iteration", iteration_},
                                         {"graph", *done_graph_},
                                         {"task", task_.task_id},
                                         {"answer", answer_},
                                         {"success", success},
                                         {"diff", to_json(diff)},
                                         {"rewards", rewards},
                                         {"routing_outcomes", routing_outcomes_json(outcomes_)}},
                                    "iteration " + std::to_string(iteration_)});
  if (--iterations_left_ > 0) return begin_iteration(out);
  finish(out, !answer_.empty(), answer_, "done");
}

// ---------------------------------------------------------------- endings

json HivaDriver::metadata(const std::string& exit) const {
  json m{{"strategy", kHivaStrategy},
         {"exit", exit},
         {"answer", answer_},
         {"first_iteration", first_iteration_},
         {"last_iteration", iteration_},
         {"iterations", iterations_log_},
         {"model_calls", model_calls_},
         {"usd", usd_},
         {"agents", graph_.agents().size()},
         {"edges", graph_.edges().size()},
         {"reply_problems", problems_},
         {"graph", exit == "done" && done_graph_ ? *done_graph_ : to_json(graph_)}};
  if (success_) m["success"] = *success_;
  if (!setup_.settings.save_as.empty()) m["saved_as"] = setup_.settings.save_as;
  return m;
}

void HivaDriver::finish(Effects& out, bool ok, const std::string& text, const std::string& exit) {
  if (finished_) return;
  finished_ = true;
  pending_.clear();
  for (const auto& [agent, hired] : hired_)
    if (hired) out.push_back(driver::Fire{hire_name(agent), 0});
  out.push_back(driver::Finish{ok, text, metadata(exit)});
}

}  // namespace kaisha::hiva
